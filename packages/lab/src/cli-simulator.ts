import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Server, utils } from 'ssh2';
import type { Connection, ServerChannel } from 'ssh2';
import { CliEngine } from './cli-engine';
import type { CommandOverride } from './cli-engine';
import { familyOf } from './cli-data';
import type { SimulatedDeviceType } from './cli-data';
import { DeviceModel, renderJunosConfig } from './cli-model';

export type { SimulatedDeviceType } from './cli-data';
export type { CommandOverride } from './cli-engine';

/** Options of {@link startCliSimulator}. */
export interface CliSimulatorOptions {
  deviceType: SimulatedDeviceType;
  /** Shown in prompts (`router1#`, `admin@router1>`); default `router1`. */
  hostname?: string;
  /** Default `admin`. */
  username?: string;
  /** Default `lab-password`. */
  password?: string;
  /** When set, `enable` asks for it (IOS-likes); otherwise `enable` needs no password. */
  enableSecret?: string;
  /** Log in at the privileged prompt; default false (NX-OS always starts privileged). */
  startPrivileged?: boolean;
  /** Outputs of commands (exact, case and spacing ignored), answered before the built-ins. */
  commands?: Record<string, CommandOverride>;
  /** Delay before each reply, in ms; default 0. */
  slowMs?: number;
  /** A command (string: whole command; RegExp: tested on the line) after which the session never answers. */
  hangOn?: string | RegExp;
  /** Refuse every login. */
  rejectAuth?: boolean;
  /** Never print a recognisable prompt. */
  noPrompt?: boolean;
  /** Lines per page until `terminal length 0`; default 24. */
  pageLength?: number;
  /** Printed after login; defaults to a banner of the device type. */
  motd?: string;
  /** SSH authentication banner (pre-login); default a legal notice. */
  loginBanner?: string;
  /** Port to listen on; default 0 (any free port). A restarted simulator can reuse its port. */
  port?: number;
  /** Host key (OpenSSH private key); default a new ed25519 key. */
  hostKey?: string;
  /** Logins beyond this many open sessions are dropped, like a device out of vty lines. */
  maxSessions?: number;
}

/** A running simulator. */
export interface CliSimulator {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly deviceType: SimulatedDeviceType;
  readonly username: string;
  readonly password: string;
  /** The private host key, to restart a simulator with the same identity. */
  readonly hostKey: string;
  /** `SHA256:…` of the host key. */
  readonly hostKeyFingerprint: string;
  /** The current hostname (changes with configuration). */
  hostname(): string;
  /** What `show running-config` (Junos: `show configuration`) prints now. */
  runningConfig(): string;
  /** Junos: the candidate configuration; IOS-likes: the running one. */
  candidateConfig(): string;
  /** Sessions (logged-in SSH connections) open now. */
  sessions(): number;
  /** The most sessions open at once since start or `resetStats()`. */
  readonly maxConcurrentSessions: number;
  /** Every command line entered, in order, across sessions. */
  commandLog(): string[];
  resetStats(): void;
  /** Closes every session and the listener. */
  stop(): Promise<void>;
}

const DEFAULT_MOTD: Record<ReturnType<typeof familyOf>, string> = {
  ios: '\n**************************************************\n* NAP lab device - authorised access only        *\n**************************************************\n\n',
  nxos: '\nCisco NX-OS Software\nCopyright (c) 2002-2022, Cisco Systems, Inc. All rights reserved.\n',
  eos: '\nLast login: Mon Jan  1 00:00:00 2024 from 127.0.0.1\n',
  junos: 'Last login: Mon Jan  1 00:00:00 2024 from 127.0.0.1\n--- JUNOS 21.4R1.12 Kernel 64-bit  JNPR-12.1-20211112.8b0e2c4_buil\n',
};

/**
 * A new ed25519 host key. ssh2 1.17's generator emits an unparsable key about once in 256 (it strips
 * a leading zero byte of the public key: mscdex/ssh2#1390, #1513), so draw again until it parses.
 */
function generateHostKey(): string {
  for (let attempt = 0; attempt < 20; attempt++) {
    const key = utils.generateKeyPairSync('ed25519').private;
    if (!(utils.parseKey(key) instanceof Error)) return key;
  }
  throw new Error('ssh2 could not generate a parsable ed25519 host key in 20 attempts');
}

/**
 * Starts an `ssh2` server on 127.0.0.1 that behaves like a network OS CLI in what a netmiko-like
 * client relies on: banner, `>`/`#` prompts, `enable` (with secret), `terminal length 0`, `--More--`
 * paging, `configure terminal` and sub-modes, Junos `configure`/`commit`, canned and generated show
 * outputs, a running configuration that configuration commands really change, the device's error
 * lines, command echo, an exec channel, and switches to misbehave (slow, hang, refuse, no prompt).
 */
export async function startCliSimulator(options: CliSimulatorOptions): Promise<CliSimulator> {
  const username = options.username ?? 'admin';
  const password = options.password ?? 'lab-password';
  const family = familyOf(options.deviceType);
  const model = new DeviceModel(options.deviceType, options.hostname ?? 'router1');
  const hostKey = options.hostKey ?? generateHostKey();
  const parsed = utils.parseKey(hostKey);
  if (parsed instanceof Error) throw parsed;
  const hostKeyFingerprint = `SHA256:${createHash('sha256').update(parsed.getPublicSSH()).digest('base64').replace(/=+$/, '')}`;
  const log: string[] = [];
  const connections = new Set<Connection>();
  let open = 0;
  let maxOpen = 0;

  const engineFor = (io: { write(text: string): void; end(): void }): CliEngine => {
    const engineOptions: ConstructorParameters<typeof CliEngine>[1] = {
      username,
      startPrivileged: options.startPrivileged ?? false,
      motd: options.motd ?? DEFAULT_MOTD[family],
      commands: options.commands ?? {},
      slowMs: options.slowMs ?? 0,
      noPrompt: options.noPrompt ?? false,
      pageLength: options.pageLength ?? 24,
      onCommand: (line) => log.push(line),
    };
    if (options.enableSecret !== undefined) engineOptions.enableSecret = options.enableSecret;
    if (options.hangOn !== undefined) engineOptions.hangOn = options.hangOn;
    return new CliEngine(model, engineOptions, io);
  };

  const server = new Server(
    { hostKeys: [hostKey], banner: options.loginBanner ?? 'Authorised access only. Activity is logged.\n' },
    (client) => {
      connections.add(client);
      // Interactive echo is many small writes; on loopback Nagle would add tens of ms to each exchange.
      (client as unknown as { setNoDelay?: (noDelay: boolean) => unknown }).setNoDelay?.(true);
      let counted = false;
      const release = (): void => {
        connections.delete(client);
        if (counted) {
          counted = false;
          open -= 1;
        }
      };
      // Counted down on the first of `end` (the client's FIN) and `close`, so by the time a client
      // sees its connection closed the simulator no longer counts it.
      client.on('end', release).on('close', release);
      client.on('error', () => undefined);
      client.on('authentication', (ctx) => {
        if (options.rejectAuth === true || ctx.username !== username) {
          ctx.reject(['password', 'keyboard-interactive']);
          return;
        }
        if (ctx.method === 'password') {
          if (ctx.password === password) ctx.accept();
          else ctx.reject(['password', 'keyboard-interactive']);
          return;
        }
        if (ctx.method === 'keyboard-interactive') {
          ctx.prompt([{ prompt: 'Password: ', echo: false }], (answers) => {
            if (answers[0] === password) ctx.accept();
            else ctx.reject(['password', 'keyboard-interactive']);
          });
          return;
        }
        ctx.reject(['password', 'keyboard-interactive']);
      });
      client.on('ready', () => {
        if (options.maxSessions !== undefined && open >= options.maxSessions) {
          client.end();
          return;
        }
        counted = true;
        open += 1;
        maxOpen = Math.max(maxOpen, open);
        client.on('session', (accept) => {
          const session = accept();
          session.on('pty', (acceptPty) => acceptPty?.());
          session.on('window-change', (acceptChange) => acceptChange?.());
          session.on('env', (acceptEnv) => acceptEnv?.());
          session.on('shell', (acceptShell) => {
            const channel: ServerChannel = acceptShell();
            channel.setEncoding('utf8');
            const engine = engineFor({
              write: (text) => {
                if (channel.writable) channel.write(text);
              },
              end: () => {
                channel.exit(0);
                channel.end();
                client.end();
              },
            });
            channel.on('data', (data: string) => engine.input(data));
            engine.start();
          });
          session.on('exec', (acceptExec, _reject, info) => {
            const channel: ServerChannel = acceptExec();
            log.push(info.command);
            const engine = engineFor({ write: () => undefined, end: () => undefined });
            const hang = options.hangOn;
            if (hang !== undefined && (typeof hang === 'string' ? hang.trim() === info.command.trim() : hang.test(info.command))) return;
            const { output, exitCode } = engine.runBatch(info.command);
            setTimeout(() => {
              channel.write(output.replace(/\n/g, '\r\n'));
              channel.exit(exitCode);
              channel.end();
            }, options.slowMs ?? 0);
          });
          session.on('subsystem', (_accept, rejectSubsystem) => rejectSubsystem());
        });
      });
    },
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let stopped = false;

  return {
    host: '127.0.0.1',
    port,
    deviceType: options.deviceType,
    username,
    password,
    hostKey,
    hostKeyFingerprint,
    hostname: () => model.hostname(),
    runningConfig: () => model.renderRunningConfig(),
    candidateConfig: () => (family === 'junos' ? renderJunosConfig(model.junosCandidate) : model.renderRunningConfig()),
    sessions: () => open,
    get maxConcurrentSessions() {
      return maxOpen;
    },
    commandLog: () => [...log],
    resetStats: () => {
      maxOpen = open;
      log.length = 0;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const c of connections) c.end();
      // A client that never closes its side must not hold the test up.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))]);
      clearTimeout(timer);
    },
  };
}
