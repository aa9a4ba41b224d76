import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { AppError } from '@nap/contracts';
import type { Logger, Registry } from '@nap/telemetry';
import { TlsReloader, readTlsPair } from './tls-files';

export interface HttpServer {
  url: string;
  port: number;
  /** With TLS: the certificate in service and the look at its files (tests call `check()` rather than wait). */
  tls?: Pick<TlsReloader, 'current' | 'check'>;
  close(): Promise<void>;
}

/**
 * Requests Node's HTTP parser refuses before express sees them (headers over 16 KiB, a client too
 * slow, malformed HTTP) are answered with the platform's JSON error body, like every other error.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, error] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, new AppError('HEADERS_TOO_LARGE', 'The request line and headers are larger than 16 KiB; send long values in the body')]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, new AppError('REQUEST_TIMEOUT', 'The request was not sent in time; the connection is closed')]
        : [400, new AppError('BAD_REQUEST', 'The request is not valid HTTP/1.1')];
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export interface ListenOptions {
  /** Time a client has to send a request's headers, ms (default 10 s). */
  headersTimeoutMs?: number;
  /** Time a client has to send a whole request, headers and body, ms (default 30 s). */
  requestTimeoutMs?: number;
  /**
   * Serve https with this certificate chain and private key, both PEM files (`NAP_TLS_CERT_FILE`,
   * `NAP_TLS_KEY_FILE`): for a single host without an ingress. Read at start, and again whenever
   * either file changes (a renewal; see {@link TlsReloader}).
   */
  tls?: { certFile: string; keyFile: string };
  /** How often the TLS files are looked at, ms (default 60 s). */
  tlsReloadCheckMs?: number;
  /** Where the TLS reloads are logged. */
  log?: Logger;
  /** Where the served certificate's expiry and the reloads are counted. */
  registry?: Registry;
}

/**
 * Listens on host:port (0 picks a free port) with keep-alive tuned for proxies and load tests, and
 * with header and request timeouts so that a slow client (a stalled body, headers sent a byte at a
 * time) is answered 408 and dropped instead of holding a connection for Node's default 300 s. With
 * `tls`, it serves https: requests are then known to be secure (cookies `Secure`, HSTS sent).
 */
export async function listen(app: http.RequestListener, host: string, port: number, options: ListenOptions = {}): Promise<HttpServer> {
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 30_000, headersTimeout);
  // Node checks these timeouts every connectionsCheckingInterval (30 s by default): check each second
  const serverOptions = { headersTimeout, requestTimeout, connectionsCheckingInterval: 1_000 };
  const pair = options.tls ? readTlsPair(options.tls) : undefined;
  const server = pair
    ? https.createServer({ ...serverOptions, cert: pair.cert, key: pair.key }, app)
    : http.createServer(serverOptions, app);
  const reloader =
    options.tls && pair && server instanceof https.Server
      ? new TlsReloader({
          files: options.tls,
          initial: pair,
          apply: ({ cert, key }) => server.setSecureContext({ cert, key }),
          ...(options.tlsReloadCheckMs !== undefined ? { checkMs: options.tlsReloadCheckMs } : {}),
          ...(options.log ? { log: options.log } : {}),
          ...(options.registry ? { registry: options.registry } : {}),
        })
      : undefined;
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  reloader?.start();
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${options.tls ? 'https' : 'http'}://${shownHost}:${address.port}`,
    port: address.port,
    ...(reloader ? { tls: reloader } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        reloader?.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
