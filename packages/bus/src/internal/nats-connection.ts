import { AppError } from '@nap/contracts';
import { errorMessage, sleep } from '@nap/util';
import { NatsConnectionImpl, setTransportFactory } from '@nats-io/nats-core/internal';
import type { NatsConnection } from '@nats-io/nats-core';
import { NodeTransport, nodeResolveHost } from '@nats-io/transport-node/lib/node_transport';
import { closedError } from './errors';
import type { BusLogger } from './logger';

/** How the bus reaches NATS (part of `NatsBusOptions`). */
export interface NatsConnectOptions {
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. */
  servers: string | string[];
  /** Connection name as the server shows it (the service name). */
  name: string;
  /** User and password, when the server requires them. */
  user?: string;
  pass?: string;
  /** Token, when the server requires one. */
  token?: string;
  /** Wait between reconnect attempts; the bus reconnects forever. Defaults to 2000 ms. */
  reconnectTimeWaitMs?: number;
  /** Timeout of the first connection attempt. Defaults to 10 000 ms. */
  connectTimeoutMs?: number;
  /** Keep trying when no server answers at start instead of failing. Defaults to `false`. */
  waitOnFirstConnect?: boolean;
}

const DEFAULT_RECONNECT_TIME_WAIT_MS = 2000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** What `onStatus` listeners hear. */
export type StatusListener = (status: 'connected' | 'disconnected') => void;

/**
 * nats.js's Node transport, writing what the client sends during one turn of the event loop in one
 * write. The client flushes its outbound buffer at the end of each microtask queue, that is once for
 * every message a process handles (each HTTP request the gateway forwards, each reply a service
 * sends): one system call per message, which on a loaded host cost the gateway a quarter of its
 * CPU, and nats-server as much again in the reads and writes it answers them with. Corked until the
 * check phase of the loop, the writes of every message handled in the turn leave together; an idle
 * process writes at once (the check phase follows the callback that sent).
 */
export class CoalescingTransport extends NodeTransport {
  private corked = false;

  override send(frame: Uint8Array): void {
    const socket = this.socket as NodeTransport['socket'] | undefined;
    if (!this.corked && socket !== undefined && !this.isClosed) {
      this.corked = true;
      socket.cork();
      setImmediate(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    super.send(frame);
  }
}

/** `connect` of `@nats-io/transport-node`, over {@link CoalescingTransport}. */
function connectCoalescing(options: Parameters<typeof NatsConnectionImpl.connect>[0]): Promise<NatsConnection> {
  setTransportFactory({ factory: () => new CoalescingTransport(), dnsResolveFn: nodeResolveHost });
  return NatsConnectionImpl.connect(options);
}

/**
 * Opens a connection that reconnects forever.
 *
 * Errors: `SERVICE_UNAVAILABLE` naming the servers when no server answers.
 */
export async function connectNats(options: NatsConnectOptions): Promise<NatsConnection> {
  const servers = Array.isArray(options.servers) ? options.servers : [options.servers];
  try {
    return await connectCoalescing({
      servers,
      name: options.name,
      user: options.user,
      pass: options.pass,
      token: options.token,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: options.reconnectTimeWaitMs ?? DEFAULT_RECONNECT_TIME_WAIT_MS,
      timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      waitOnFirstConnect: options.waitOnFirstConnect ?? false,
      // nats.js builds a RequestError and a TimeoutError (stack traces) for every request up front,
      // to show the caller's stack should it fail: a tenth of a gateway's CPU, and our errors name
      // the operation and subject instead
      noAsyncTraces: true,
    });
  } catch (err) {
    throw new AppError('SERVICE_UNAVAILABLE', `Cannot connect to NATS at ${servers.join(', ')}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

/**
 * The state of one NATS connection as the bus reports it: connected or not (from the client's
 * status stream, so that requests can fail fast while the server is away), the `onStatus`
 * listeners, and the drain that ends it.
 */
export class NatsConnectionState {
  private readonly listeners: StatusListener[] = [];
  private connected = true;

  /** `onReconnect` runs after each reconnect (not after the first connect). */
  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: BusLogger,
    private readonly onReconnect: () => void,
  ) {
    void this.watch();
  }

  isConnected(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  isClosed(): boolean {
    return this.nc.isClosed();
  }

  onStatus(listener: StatusListener): void {
    this.listeners.push(listener);
  }

  /** Resolves once the server has processed everything sent so far (subscriptions included). */
  async flush(): Promise<void> {
    try {
      await this.nc.flush();
    } catch (err) {
      throw closedError('flush', err);
    }
  }

  /** Drains the connection, closing it when the drain takes longer than `drainTimeoutMs`; then reports `disconnected`. */
  async drain(drainTimeoutMs: number): Promise<void> {
    if (this.nc.isClosed()) return;
    const drained = this.nc.drain().then(
      () => true,
      () => false,
    );
    const ok = await Promise.race([drained, sleep(drainTimeoutMs).then(() => false)]);
    if (!ok && !this.nc.isClosed()) await this.nc.close().catch(() => undefined);
    this.setConnected(false);
  }

  private setConnected(connected: boolean): void {
    if (this.connected === connected) return;
    this.connected = connected;
    for (const listener of this.listeners) {
      try {
        listener(connected ? 'connected' : 'disconnected');
      } catch (err) {
        this.logger.error({ err }, 'bus status listener threw');
      }
    }
  }

  private async watch(): Promise<void> {
    void this.nc.closed().then(() => this.setConnected(false));
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') {
        this.logger.warn({ server: status.server }, 'NATS connection lost; reconnecting');
        this.setConnected(false);
      } else if (status.type === 'reconnect') {
        this.logger.info({ server: status.server }, 'NATS connection restored');
        this.setConnected(true);
        this.onReconnect();
      }
    }
  }
}
