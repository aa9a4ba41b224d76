/**
 * The platform as users run it, for the fault campaign: built `dist/` entry points started as real
 * processes (the standalone process, or one process per service and gateway over a real
 * nats-server), killed with SIGKILL and restarted the way an operator would.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, isRunning, spawnTracked, startNatsServer, waitForOutput } from '@nap/testing';
import type { NatsServer } from '@nap/testing';

export const REPO_ROOT = path.resolve(__dirname, '../../..');
export const ADMIN_PASSWORD = 'fault-campaign-admin-password';
const SECRET_KEY = 'fault-campaign-secret-key-0123456789';
const OUTPUT_TAIL = 64_000;

/** One NAP process started from its built entry point. */
export class NapChild {
  private tail = '';
  private readonly exited: Promise<void>;
  /** Killed on purpose (SIGKILL or stop); any other exit is a crash. */
  private ended = false;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.tail = (this.tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Starts `node <entry>`; resolves once `ready` matches its output. */
  static async start(name: string, entry: string, env: Record<string, string>, ready: RegExp, timeoutMs = 120_000): Promise<NapChild> {
    const file = path.join(REPO_ROOT, entry);
    if (!existsSync(file)) throw new Error(`${entry} is missing: build first (npm run test:faults builds)`);
    const child = spawnTracked(process.execPath, [file], { env: { ...process.env, NAP_LOG_LEVEL: 'info', ...env } });
    const proc = new NapChild(name, child);
    try {
      await waitForOutput(child, ready, { what: name, timeoutMs, output: () => proc.output() });
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
    return proc;
  }

  output(): string {
    return this.tail;
  }

  alive(): boolean {
    return isRunning(this.child);
  }

  /** Exited without being told to: a crash. */
  crashed(): boolean {
    return !this.ended && !this.alive();
  }

  /** kill -9. */
  async kill(): Promise<void> {
    this.ended = true;
    if (!this.alive()) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM, SIGKILL after 10 s. */
  async stop(): Promise<void> {
    this.ended = true;
    if (!this.alive()) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }

  /** The `time` (epoch ms) of the first JSON log line (in the kept output) whose message is `msg`; undefined when there is none. */
  loggedAt(msg: string): number | undefined {
    return this.loggedTimes(msg)[0];
  }

  /** The `time` (epoch ms) of every JSON log line (in the kept output) whose message is `msg`. */
  loggedTimes(msg: string): number[] {
    const times: number[] = [];
    for (const line of this.tail.split('\n')) {
      if (!line.includes(`"msg":"${msg}"`)) continue;
      // pino writes ISO times ("time":"2026-…Z"), or epoch ms when so configured
      const m = /"time":(?:"([^"]+)"|(\d+))/.exec(line);
      const at = m?.[1] !== undefined ? Date.parse(m[1]) : Number(m?.[2]);
      if (Number.isFinite(at)) times.push(at);
    }
    return times;
  }

  /** The first `"key":"value"` of the process's JSON logs. */
  logged(key: string): string {
    const m = new RegExp(`"${key}":"([^"]+)"`).exec(this.tail);
    if (!m?.[1]) throw new Error(`${this.name} did not log ${key}:\n${this.output()}`);
    return m[1];
  }
}

/** Progress of the campaign on stderr (jest keeps stdout for its report). */
export function progress(line: string): void {
  process.stderr.write(`[faults] ${line}\n`);
}

/** An HTTP client of one gateway, logged in as the administrator. */
export class Client {
  constructor(
    public url: string,
    public token = '',
  ) {}

  async login(password = ADMIN_PASSWORD): Promise<string> {
    const res = await fetch(`${this.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { username: 'admin', password } }),
    });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`Login failed: ${res.status} ${body}`);
    // /login answers the bare token as text/plain
    this.token = body.trim();
    return this.token;
  }

  /** One request; `status` 0 when no answer came (connection refused or reset). */
  async request(
    method: string,
    route: string,
    body?: unknown,
    options: { token?: string; timeoutMs?: number } = {},
  ): Promise<{ status: number; body: unknown; ms: number; error?: string }> {
    const started = performance.now();
    const token = options.token ?? this.token;
    try {
      const res = await fetch(`${this.url}${route}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, body: parsed, ms: performance.now() - started };
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      return { status: 0, body: undefined, ms: performance.now() - started, error: cause?.code ?? (err as Error).name };
    }
  }

  /** A request that must answer 2xx; its body. */
  async ok<T = unknown>(method: string, route: string, body?: unknown): Promise<T> {
    const res = await this.request(method, route, body);
    if (res.status < 200 || res.status >= 300)
      throw new Error(`${method} ${route}: ${res.status} ${res.error ?? JSON.stringify(res.body)}`);
    return res.body as T;
  }
}

/** A fresh data directory, removed by `remove()`. */
export function dataDirectory(label: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `nap-faults-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `npm start`: the whole platform in one process on a fixed port, restartable on the same data. */
export class Standalone {
  process?: NapChild;
  readonly client: Client;

  private constructor(
    readonly dataDir: string,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {
    this.client = new Client(`http://127.0.0.1:${port}`);
  }

  static async start(dataDir: string, env: Record<string, string> = {}): Promise<Standalone> {
    const platform = new Standalone(dataDir, await freePort(), env);
    await platform.launch();
    await platform.client.login();
    return platform;
  }

  /** Starts the process (again); resolves when it listens. */
  async launch(): Promise<NapChild> {
    const env = {
      NAP_DATA_DIR: this.dataDir,
      NAP_PORT: String(this.port),
      NAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      NAP_SECRET_KEY: SECRET_KEY,
      ...this.env,
    };
    this.process = await NapChild.start('standalone', 'deploy/standalone/dist/main.js', env, /NAP is listening on/);
    return this.process;
  }

  async kill(): Promise<void> {
    await this.process?.kill();
  }

  async stop(): Promise<void> {
    await this.process?.stop();
  }
}

/** The six services of the platform, in the order they are started. */
export const SERVICES = ['admin', 'studio', 'gateway-devices', 'mop', 'orch-proxy', 'workflow'] as const;

/** One process per service (the workflow engine replicated) and gateways, over a real nats-server. */
export class Distributed {
  readonly processes: NapChild[] = [];
  readonly workflows: NapChild[] = [];
  readonly gateways: { process: NapChild; client: Client }[] = [];

  private constructor(
    readonly nats: NatsServer,
    readonly dataDir: string,
  ) {}

  /** Starts nats-server with JetStream, every service (`workflowReplicas` engines) and `gateways` gateways, and logs in on the first. */
  static async start(
    dataDir: string,
    options: { workflowReplicas?: number; gateways?: number; env?: Record<string, string> } = {},
  ): Promise<Distributed> {
    const nats = await startNatsServer({ jetstream: true });
    const platform = new Distributed(nats, dataDir);
    try {
      const env = platform.env(options.env);
      for (const service of SERVICES) {
        const replicas = service === 'workflow' ? (options.workflowReplicas ?? 1) : 1;
        for (let i = 0; i < replicas; i += 1) {
          const proc = await NapChild.start(
            `${service}${replicas > 1 ? `-${i + 1}` : ''}`,
            `services/${service}/dist/main.js`,
            env,
            new RegExp(`Service ${service} is serving`),
          );
          platform.processes.push(proc);
          if (service === 'workflow') platform.workflows.push(proc);
        }
      }
      for (let i = 0; i < (options.gateways ?? 1); i += 1) await platform.startGateway(env);
      await platform.client.login();
    } catch (err) {
      await platform.stop();
      throw err;
    }
    return platform;
  }

  private env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      NAP_NATS_URL: this.nats.url,
      NAP_DATA_DIR: this.dataDir,
      NAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      NAP_SECRET_KEY: SECRET_KEY,
      NAP_PORT: '0',
      ...extra,
    };
  }

  private async startGateway(env: Record<string, string>): Promise<void> {
    const proc = await NapChild.start(`gateway-${this.gateways.length + 1}`, 'gateway/dist/main.js', env, /Gateway listening/);
    this.processes.push(proc);
    this.gateways.push({ process: proc, client: new Client(proc.logged('url')) });
  }

  /** Starts one more process of `service` (after a kill -9 of its replica, as an operator would); resolves once it serves. */
  async startService(service: (typeof SERVICES)[number], name = `${service}-restarted`): Promise<NapChild> {
    const proc = await NapChild.start(name, `services/${service}/dist/main.js`, this.env(), new RegExp(`Service ${service} is serving`));
    this.processes.push(proc);
    return proc;
  }

  /** The client of the first gateway. */
  get client(): Client {
    const first = this.gateways[0];
    if (first === undefined) throw new Error('No gateway runs');
    return first.client;
  }

  /** Processes that exited without being told to. */
  crashed(): string[] {
    return this.processes.filter((p) => p.crashed()).map((p) => `${p.name}:\n${p.output().slice(-4_000)}`);
  }

  async stop(): Promise<void> {
    for (const proc of [...this.processes].reverse()) await proc.stop();
    await this.nats.stop();
  }
}

/** The id the workflow engine of a process logged when it started. */
export function engineIdOf(proc: NapChild): string {
  return proc.logged('serverId');
}
