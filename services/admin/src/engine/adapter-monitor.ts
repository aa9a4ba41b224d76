import { isLogLevel } from '@nap/contracts';
import type { AdapterChangedEvent, AdapterState } from '@nap/contracts';
import { pinoLevel } from '@nap/bus';
import type { SecretBox } from '@nap/runtime';
import type { Logger } from '@nap/telemetry';
import { errorMessage, isRecord } from '@nap/util';
import type { AdminEvents } from '../clients/events';
import type { OutboundHttp } from '../clients/outbound-http';
import { adapterTarget, healthcheckOf } from '../domain/adapters';
import type { AdapterRuntimeState } from '../domain/adapters';
import type { AdapterDoc } from '../store/adapters';

/** Bound of one connection check, ms (and never more than the interval). */
const CHECK_TIMEOUT_MS = 5_000;

/** What this process knows of a started adapter: state, connection, the check timer. */
interface Runtime extends AdapterRuntimeState {
  failures: number;
  timer?: NodeJS.Timeout;
  /** The document version the runtime was started with. */
  version: number;
  checking?: Promise<void>;
}

/**
 * The runtimes of the adapters this process started: each a periodic connection check (an HTTP
 * GET of the health path) that brings a STARTING adapter to RUNNING, and a failing one to DEAD.
 * Every change of state is published as `adapterChanged`.
 */
export class AdapterMonitor {
  private readonly runtimes = new Map<string, Runtime>();

  constructor(
    private readonly http: OutboundHttp,
    private readonly secrets: SecretBox,
    private readonly events: AdminEvents,
    private readonly log: Logger,
  ) {}

  /** What this process knows of the adapter's connection; nothing when it did not start it. */
  runtime(name: string): AdapterRuntimeState | undefined {
    return this.runtimes.get(name);
  }

  /** The state of an adapter that is starting, running or stopping here; undefined when it is stopped, dead or unknown. */
  activeState(name: string): AdapterState | undefined {
    const rt = this.runtimes.get(name);
    return rt !== undefined && rt.state !== 'STOPPED' && rt.state !== 'DEAD' ? rt.state : undefined;
  }

  /** Starts the monitors of the adapters that were RUNNING when the service last stopped. */
  resume(running: AdapterDoc[]): void {
    for (const doc of running) this.launch(doc);
  }

  /** Stops every monitor (the service stops); the stored desired states stay. */
  async shutdown(): Promise<void> {
    for (const rt of this.runtimes.values()) if (rt.timer) clearInterval(rt.timer);
    await Promise.all([...this.runtimes.values()].map((rt) => rt.checking));
    this.runtimes.clear();
  }

  /** Starts the runtime of a document whose desired state is RUNNING: STARTING until the first check, then RUNNING. */
  launch(doc: AdapterDoc): AdapterState {
    const { intervalMs } = healthcheckOf(doc);
    const rt: Runtime = { state: 'STARTING', connection: 'UNKNOWN', failures: 0, version: doc.version };
    this.runtimes.set(doc.name, rt);
    void this.announce(doc.name, 'state', 'STARTING');
    const tick = () => {
      if (rt.checking !== undefined) return;
      rt.checking = this.check(doc, rt, Math.min(intervalMs, CHECK_TIMEOUT_MS)).finally(() => delete rt.checking);
    };
    rt.timer = setInterval(tick, intervalMs);
    rt.timer.unref();
    tick();
    return 'STARTING';
  }

  /** Restarts a running adapter's monitor with a new version of its document. */
  relaunch(doc: AdapterDoc): void {
    this.halt(doc.name);
    this.launch(doc);
  }

  /** Ends the runtime of the adapter once its check under way is done (a restart, a deletion). */
  async forget(name: string): Promise<void> {
    this.halt(name);
    await this.runtimes.get(name)?.checking;
    this.runtimes.delete(name);
  }

  /** Drops what this process knew of an adapter of that name (a new adapter takes the name). */
  drop(name: string): void {
    this.runtimes.delete(name);
  }

  /** Stops the checks: STOPPING until the check under way is done, then STOPPED. The state it is in now. */
  stop(name: string): AdapterState {
    const rt = this.runtimes.get(name);
    if (rt === undefined || rt.state === 'STOPPED') return 'STOPPED';
    this.halt(name);
    rt.state = 'STOPPING';
    void this.announce(name, 'state', 'STOPPING');
    void (async () => {
      await rt.checking;
      if (this.runtimes.get(name) !== rt || rt.state !== 'STOPPING') return;
      rt.state = 'STOPPED';
      rt.connection = 'UNKNOWN';
      delete rt.runningSince;
      await this.announce(name, 'state', 'STOPPED');
    })();
    return 'STOPPING';
  }

  /** Publishes `adapterChanged`; a failure to publish is logged, never thrown (the change itself happened). */
  async announce(name: string, reason: AdapterChangedEvent['reason'], state: string): Promise<void> {
    try {
      await this.events.adapterChanged({ name, reason, state });
    } catch (err) {
      this.log.error({ err, adapter: name }, 'Could not publish adapterChanged');
    }
  }

  /** The adapter's own logger: at the level of its loggerProps (`PUT /adapters/:name/loglevel`), else the service's. */
  loggerOf(doc: AdapterDoc): Logger {
    const props = isRecord(doc.data.loggerProps) ? doc.data.loggerProps : {};
    const level = [props.console_level, props.log_level].find(isLogLevel);
    return level === undefined ? this.log : this.log.child({}, { level: pinoLevel(level) });
  }

  private halt(name: string): void {
    const rt = this.runtimes.get(name);
    if (rt?.timer !== undefined) {
      clearInterval(rt.timer);
      delete rt.timer;
    }
  }

  /** One connection check: ONLINE when the system answers the health path (below 500, and not refusing the credentials). */
  private async check(doc: AdapterDoc, rt: Runtime, timeoutMs: number): Promise<void> {
    const { path, failuresBeforeDead } = healthcheckOf(doc);
    let problem: string | undefined;
    try {
      const answer = await this.http.send(adapterTarget(doc, this.secrets, true), { method: 'GET', path, timeoutMs });
      if (answer.status >= 500) problem = `the health path ${path} answered ${answer.status}`;
      else if (answer.status === 401 || answer.status === 403)
        problem = `the system refused the adapter's credentials (${answer.status} on ${path})`;
    } catch (err) {
      problem = errorMessage(err);
    }
    if (this.runtimes.get(doc.name) !== rt || rt.state === 'STOPPING' || rt.state === 'STOPPED' || rt.state === 'DEAD') return;
    const now = new Date().toISOString();
    rt.lastCheck = now;
    const before = rt.state;
    if (problem === undefined) {
      rt.failures = 0;
      rt.connection = 'ONLINE';
    } else {
      rt.failures += 1;
      rt.connection = 'OFFLINE';
      rt.lastError = { message: problem, at: now };
      this.loggerOf(doc).warn({ adapter: doc.name, failures: rt.failures }, `Adapter connection check failed: ${problem}`);
    }
    if (rt.state === 'STARTING') {
      rt.state = 'RUNNING';
      rt.runningSince = Date.now();
    }
    if (rt.failures >= failuresBeforeDead) {
      rt.state = 'DEAD';
      delete rt.runningSince;
      if (rt.timer !== undefined) clearInterval(rt.timer);
      delete rt.timer;
    }
    if (rt.state !== before) await this.announce(doc.name, 'state', rt.state);
  }
}
