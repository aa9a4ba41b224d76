import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request the proxy saw. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface ProxyOptions {
  /** Requests answered `503 PROXY_REFUSED` instead of reaching the platform (a failing load balancer). */
  refuse?: (method: string, path: string) => boolean;
  /** Event streams (`text/event-stream`) cut this long after they open, as an idle timeout of a load balancer would. */
  cutStreamsAfterMs?: number;
  /** Event streams cut right after passing on a chunk whose text this says yes to. */
  cutStreamsAfter?: (chunk: string) => boolean;
  /** Waited for before a request is passed on (a slow hop), when it gives a promise. */
  hold?: (method: string, path: string) => Promise<unknown> | undefined;
}

export interface Proxy {
  port: number;
  /** Every request, in order. */
  seen: SeenRequest[];
  /**
   * The platform behind goes away (true: every connection open is cut, and each new one is closed
   * at once, as a restart or a failover looks from the client) or comes back (false).
   */
  setDown(down: boolean): void;
  stop(): Promise<void>;
}

/**
 * An HTTP proxy in front of a platform started by a test: it forwards every request as it is, and
 * injects the faults a test asks for (requests refused, event streams cut), so that `nap` meets them
 * against the real platform behind.
 */
export async function startProxy(target: string, options: ProxyOptions = {}): Promise<Proxy> {
  const base = new URL(target);
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    seen.push({ method, path, headers: req.headers });
    if (options.refuse?.(method, path.split('?')[0] ?? path) === true) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'PROXY_REFUSED', message: 'the test proxy refused the request' }));
      return;
    }
    const held = options.hold?.(method, path.split('?')[0] ?? path);
    if (held !== undefined) {
      req.pause();
      void held.then(() => forward(req, res, method, path));
      return;
    }
    forward(req, res, method, path);
  });
  const forward = (req: http.IncomingMessage, res: http.ServerResponse, method: string, path: string): void => {
    const upstream = http.request(
      { host: base.hostname, port: base.port, method, path, headers: { ...req.headers, host: base.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        const stream = String(answer.headers['content-type'] ?? '').includes('text/event-stream');
        const cut = options.cutStreamsAfterMs;
        if (cut !== undefined && stream) {
          const timer = setTimeout(() => {
            answer.destroy();
            res.destroy();
          }, cut);
          res.on('close', () => clearTimeout(timer));
        }
        const cutAfter = options.cutStreamsAfter;
        if (cutAfter !== undefined && stream)
          answer.on('data', (chunk: Buffer) => {
            if (!cutAfter(chunk.toString('utf8'))) return;
            // after this chunk reached the client
            res.write('', () => {
              answer.destroy();
              res.destroy();
            });
          });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
  let down = false;
  server.on('connection', (socket) => {
    if (down) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    setDown: (value) => {
      down = value;
      if (value) for (const socket of sockets) socket.destroy();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
