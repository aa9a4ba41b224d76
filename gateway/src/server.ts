import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { AppError } from '@nap/contracts';

export interface HttpServer {
  url: string;
  port: number;
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
   * `NAP_TLS_KEY_FILE`): for a single host without an ingress. Read once at start.
   */
  tls?: { certFile: string; keyFile: string };
}

/** The PEM file of a TLS setting; an error naming the setting and the file when it cannot be read. */
function pemFile(file: string, setting: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`${setting} names ${file}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  }
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
  const server = options.tls
    ? https.createServer(
        {
          ...serverOptions,
          cert: pemFile(options.tls.certFile, 'NAP_TLS_CERT_FILE'),
          key: pemFile(options.tls.keyFile, 'NAP_TLS_KEY_FILE'),
        },
        app,
      )
    : http.createServer(serverOptions, app);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${options.tls ? 'https' : 'http'}://${shownHost}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
