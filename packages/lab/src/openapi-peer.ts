import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP peer that serves a few operations of the fixture OpenAPI document
 * `ServiceNow_OpenAPIs_table_latest.json` (the ServiceNow Table API) and records what it receives:
 *
 * - `GET /api/now/table/{tableName}` (`sysparm_query` as `field=value^field=value`, `sysparm_limit`, `sysparm_fields`)
 * - `POST /api/now/table/{tableName}` (JSON body; answers 201 `{ result }`)
 * - `GET|PATCH|DELETE /api/now/table/{tableName}/{sys_id}` (404 `{ error }` for an unknown sys_id)
 * - `POST /oauth_token.do` (OAuth 2 client credentials, Basic client authentication, as ServiceNow)
 * - `GET /stats.do` (the health path adapters check; `GET /` answers too)
 *
 * Every table route requires `Authorization`: Basic with the peer's user and password, or Bearer
 * with a token it issued. `received` lists each request (method, path, raw query, headers, body).
 */

export interface ReceivedRequest {
  method: string;
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface OpenApiPeerOptions {
  user?: string;
  password?: string;
  clientId?: string;
  clientSecret?: string;
  /** Lifetime of issued tokens, seconds. */
  tokenTtlSeconds?: number;
}

export interface OpenApiPeer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  user: string;
  password: string;
  clientId: string;
  clientSecret: string;
  received: ReceivedRequest[];
  /** Tokens issued by `/oauth_token.do`. */
  tokensIssued: number;
  /** Records of each table by sys_id. */
  tables: Map<string, Map<string, Record<string, unknown>>>;
  /** Stops listening (connections closed): the system is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function matches(record: Record<string, unknown>, sysparmQuery: string | null): boolean {
  if (sysparmQuery === null || sysparmQuery === '') return true;
  return sysparmQuery.split('^').every((clause) => {
    const [field, ...value] = clause.split('=');
    return field !== undefined && String(record[field] ?? '') === value.join('=');
  });
}

function pick(record: Record<string, unknown>, fields: string | null): Record<string, unknown> {
  if (fields === null || fields === '') return record;
  return Object.fromEntries(fields.split(',').map((f) => [f, record[f] ?? '']));
}

/** Starts the peer on a free loopback port. */
export async function startOpenApiPeer(options: OpenApiPeerOptions = {}): Promise<OpenApiPeer> {
  const user = options.user ?? 'nap-lab';
  const password = options.password ?? randomBytes(9).toString('base64url');
  const clientId = options.clientId ?? 'nap-client';
  const clientSecret = options.clientSecret ?? randomBytes(9).toString('base64url');
  const tokens = new Map<string, number>();
  const tables = new Map<string, Map<string, Record<string, unknown>>>();
  const received: ReceivedRequest[] = [];
  let tokensIssued = 0;

  const authorized = (header: string | undefined): boolean => {
    if (header === undefined) return false;
    if (header.startsWith('Basic ')) return Buffer.from(header.slice(6), 'base64').toString('utf8') === `${user}:${password}`;
    if (header.startsWith('Bearer ')) return (tokens.get(header.slice(7)) ?? 0) > Date.now();
    return false;
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, body: string): void => {
    const url = new URL(req.url ?? '/', 'http://peer');
    const method = req.method ?? 'GET';
    if (method === 'GET' && (url.pathname === '/stats.do' || url.pathname === '/')) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      return;
    }
    if (method === 'POST' && url.pathname === '/oauth_token.do') {
      const form = new URLSearchParams(body);
      const basic = req.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString('utf8')
        : '';
      const [id, secret] = basic.split(':').map((s) => decodeURIComponent(s));
      if (form.get('grant_type') !== 'client_credentials' || id !== clientId || secret !== clientSecret) {
        send(res, 401, { error: 'invalid_client' });
        return;
      }
      const token = randomUUID();
      const ttl = options.tokenTtlSeconds ?? 1800;
      tokens.set(token, Date.now() + ttl * 1000);
      tokensIssued += 1;
      send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: ttl, scope: form.get('scope') ?? 'useraccount' });
      return;
    }
    const m = /^\/api\/now\/table\/([^/]+)(?:\/([^/]+))?$/.exec(url.pathname);
    if (m === null) {
      send(res, 404, { error: { message: `No route ${method} ${url.pathname}` }, status: 'failure' });
      return;
    }
    if (!authorized(req.headers.authorization)) {
      send(res, 401, { error: { message: 'User Not Authenticated', detail: 'Required to provide Auth information' }, status: 'failure' });
      return;
    }
    const tableName = decodeURIComponent(m[1] ?? '');
    const sysId = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
    const table = tables.get(tableName) ?? new Map<string, Record<string, unknown>>();
    tables.set(tableName, table);
    const fields = url.searchParams.get('sysparm_fields');
    if (sysId === undefined) {
      if (method === 'GET') {
        const limit = Number(url.searchParams.get('sysparm_limit') ?? '10000');
        const rows = [...table.values()].filter((r) => matches(r, url.searchParams.get('sysparm_query'))).slice(0, limit);
        res.setHeader('x-total-count', String(rows.length));
        send(res, 200, { result: rows.map((r) => pick(r, fields)) });
        return;
      }
      if (method === 'POST') {
        if (!/json/.test(req.headers['content-type'] ?? '')) {
          send(res, 415, { error: { message: 'Content-Type must be application/json' } });
          return;
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          send(res, 400, { error: { message: 'Invalid JSON body' } });
          return;
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
          send(res, 400, { error: { message: 'The body must be an object' } });
          return;
        }
        const record = { ...(parsed as Record<string, unknown>), sys_id: randomUUID().replace(/-/g, '') };
        table.set(String(record.sys_id), record);
        send(res, 201, { result: pick(record, fields) });
        return;
      }
      send(res, 405, { error: { message: `${method} not allowed` } });
      return;
    }
    const record = table.get(sysId);
    if (record === undefined) {
      send(res, 404, {
        error: { message: 'No Record found', detail: `Record doesn't exist or ACL restricts the record retrieval` },
        status: 'failure',
      });
      return;
    }
    if (method === 'GET') send(res, 200, { result: pick(record, fields) });
    else if (method === 'PATCH' || method === 'PUT') {
      Object.assign(record, JSON.parse(body || '{}') as Record<string, unknown>);
      send(res, 200, { result: pick(record, fields) });
    } else if (method === 'DELETE') {
      table.delete(sysId);
      send(res, 204);
    } else send(res, 405, { error: { message: `${method} not allowed` } });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://peer');
      received.push({ method: req.method ?? 'GET', path: url.pathname, query: url.search.replace(/^\?/, ''), headers: req.headers, body });
      try {
        handle(req, res, body);
      } catch (err) {
        send(res, 500, { error: { message: err instanceof Error ? err.message : String(err) } });
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => resolve());
      server.closeAllConnections();
    });

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    user,
    password,
    clientId,
    clientSecret,
    received,
    get tokensIssued() {
      return tokensIssued;
    },
    tables,
    stop,
    restart: () =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      }),
    close: stop,
  };
}
