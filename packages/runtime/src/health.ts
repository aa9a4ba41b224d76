import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Bus } from '@nap/bus';
import type { Store } from '@nap/store';
import type { Registry } from 'prom-client';
import { errorMessage } from '@nap/util';

/** One thing a process needs to do its work: its bus connection, its store. */
export interface HealthCheck {
  /** Name in the readiness answer (`bus`, `store`). */
  name: string;
  /** Resolves when healthy; rejects (or outlasts the timeout) otherwise, with a reason. */
  check(): Promise<void>;
}

/** The bus is connected (NATS: not between a disconnect and a reconnect). */
export function busCheck(bus: Bus): HealthCheck {
  return {
    name: 'bus',
    check: async () => {
      if (!bus.isConnected()) throw new Error(`${bus.kind} bus is disconnected`);
    },
  };
}

/** The store answers a ping (MongoDB `ping`; the embedded store is open). */
export function storeCheck(store: Store, name = 'store'): HealthCheck {
  return { name, check: () => store.ping() };
}

/** Readiness of a set of checks, each bounded by `timeoutMs`; never rejects. */
export async function checkHealth(
  checks: readonly HealthCheck[],
  timeoutMs: number,
): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const results = await Promise.all(
    checks.map(async (c): Promise<[string, string]> => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([c.check(), timeout]);
        return [c.name, 'ok'];
      } catch (err) {
        return [c.name, errorMessage(err)];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ready: results.every(([, r]) => r === 'ok'), checks: Object.fromEntries(results) };
}

export interface HealthServerOptions {
  host: string;
  /** `NAP_HEALTH_PORT`; 0 picks a free port. */
  port: number;
  checks: readonly HealthCheck[];
  /** This process's registry, served as `/metrics` for Prometheus when given. */
  registry?: Registry;
  /** Bound of each readiness check, ms (default 2000). */
  checkTimeoutMs?: number;
}

export interface HealthServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * The management listener of one process, for container probes and Prometheus:
 * `GET /health/live` (200 while the process answers), `GET /health/ready` (200 when every check
 * passes, 503 naming each failing check otherwise) and `GET /metrics` (this process's registry).
 * No credentials: it tells only health and metrics, and belongs on a port that is not published.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const timeoutMs = options.checkTimeoutMs ?? 2_000;
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const route = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (route === '/health/live') {
      json(res, 200, { status: 'ok' });
    } else if (route === '/health/ready') {
      void checkHealth(options.checks, timeoutMs).then((health) =>
        json(res, health.ready ? 200 : 503, { status: health.ready ? 'ready' : 'not ready', checks: health.checks }),
      );
    } else if (route === '/metrics' && options.registry) {
      const registry = options.registry;
      registry
        .metrics()
        .then((text) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(text);
        })
        .catch((err: unknown) => json(res, 500, { status: 'error', message: err instanceof Error ? err.message : 'metrics failed' }));
    } else {
      json(res, 404, { status: 'error', message: `No ${route} here: /health/live, /health/ready${options.registry ? ', /metrics' : ''}` });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
