import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface HttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Listens on host:port (0 picks a free port) with keep-alive tuned for proxies and load tests. */
export async function listen(app: Express, host: string, port: number): Promise<HttpServer> {
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
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
