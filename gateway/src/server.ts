import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface HttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Time a client has to send a request's headers, ms (default 10 s). */
  headersTimeoutMs?: number;
  /** Time a client has to send a whole request, headers and body, ms (default 30 s). */
  requestTimeoutMs?: number;
}

/**
 * Listens on host:port (0 picks a free port) with keep-alive tuned for proxies and load tests, and
 * with header and request timeouts so that a slow client (a stalled body, headers sent a byte at a
 * time) is answered 408 and dropped instead of holding a connection for Node's default 300 s.
 */
export async function listen(app: Express, host: string, port: number, options: ListenOptions = {}): Promise<HttpServer> {
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 30_000, headersTimeout);
  // Node checks these timeouts every connectionsCheckingInterval (30 s by default): check each second
  const server = http.createServer({ headersTimeout, requestTimeout, connectionsCheckingInterval: 1_000 }, app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
