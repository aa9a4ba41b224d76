import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  PathError,
  changedLeaves,
  clone,
  isKnownList,
  isObject,
  keysOf,
  locate,
  merge,
  parseKeypath,
  parseRestconfPath,
  renderCli,
  renderNative,
  renderXml,
} from './nso-tree';
import type { Json, JsonObject, Location, Segment } from './nso-tree';

/**
 * A loopback HTTP server that behaves like Cisco NSO for what the orchestrator routes use, checked
 * against NSO's RESTCONF and JSON-RPC documentation:
 *
 * - Basic auth on `/restconf` and `/jsonrpc` (401 with `ietf-restconf:errors` / `access-denied`).
 * - `GET /restconf` (the root resource); `/restconf/data/**` over an in-memory YANG-JSON tree
 *   ({@link seedTree}: `tailf-ncs:devices/device` entries, C-IOS1 with its loopbacks). Keys in the
 *   path as `device=C-IOS1`, percent-decoded. GET 200 (`application/yang-data+json`, the target named
 *   `module:name`), 204 for an empty list, 404 "uri keypath not found"; POST 201 with `Location`,
 *   409 `data-exists`; PUT 201 (created) or 204 (replaced); PATCH 204; DELETE 204. Errors are
 *   `ietf-restconf:errors` with `application/yang-data+json`. JSON only: an XML media type is 406.
 * - Commit query parameters on POST/PUT/PATCH/DELETE: `dry-run=cli|native|xml` (answers
 *   `dry-run-result` without committing), `dry-run-reverse`, `commit-queue=async|sync|bypass`,
 *   `no-overwrite`, `no-networking`, `no-out-of-sync-check`, `rollback-id`, `rollback-label`,
 *   `rollback-comment` (and `label`, `comment`); GET takes `depth`, `content`, `with-defaults`. Any
 *   other query parameter is 400 `invalid-value`; so is one on an action (as NSO answers).
 * - Device actions `sync-from` and `check-sync` (per device and on `tailf-ncs:devices`) answering
 *   `tailf-ncs:output`; a per-device out-of-sync switch ({@link NsoPeer.setOutOfSync}) that makes
 *   commits touching the device's config fail (409 `in-use`, "out of sync") unless
 *   `no-out-of-sync-check`; `sync-from` clears it.
 * - JSON-RPC at `/jsonrpc` (and `/jsonrpc/<anything>`): `login` with `{user, passwd}` as NSO
 *   documents it (anything else, Basic credentials included, is `rpc.method.failed`) setting the
 *   session cookie: `sessionid_<port>` as newer NSO releases name it, or `sessionid`
 *   ({@link NsoPeerOptions.sessionCookie}); every other call without that cookie is
 *   `session.missing_sessionid`, with an unknown one `session.invalid_sessionid`; `logout`, `new_trans`, `get_value`, `set_value`, `delete`, `validate_commit`, `commit`
 *   (flags as RESTCONF's parameters: `dry-run=FORMAT`, `commit-queue=MODE`, `no-overwrite`, …) and
 *   `delete_trans`; errors as JSON-RPC `error` objects with NSO's `type` tokens. The result of a
 *   dry-run `commit` is `{"dry-run-result": …}` as in RESTCONF (NSO's documentation does not show
 *   that result; this is the lab's choice).
 * - A request log ({@link NsoPeer.requests}) and fault injection ({@link NsoPeer.inject}: a delay,
 *   a status, or a connection reset, for matching requests).
 */

/** One request the peer received, in arrival order. */
export interface NsoRequest {
  method: string;
  /** Path without the query string, as sent (not decoded). */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The JSON-RPC method, for `/jsonrpc` requests. */
  rpc?: string;
}

/** A fault for requests that match: waits `delayMs`, then answers `status` or resets the connection (or goes on normally). */
export interface NsoFault {
  match?: { method?: string; path?: string | RegExp; rpc?: string };
  delayMs?: number;
  status?: number;
  reset?: boolean;
  /** How many matching requests it applies to; every one when absent. */
  times?: number;
}

export interface NsoPeerOptions {
  user?: string;
  password?: string;
  /** The data tree to start from; {@link seedTree} by default. */
  tree?: JsonObject;
  /** The session cookie's name: `port` (default) is `sessionid_<port>` as newer NSO releases set it, `sessionid` the older name. */
  sessionCookie?: 'port' | 'sessionid';
}

export interface NsoPeer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  user: string;
  password: string;
  /** Every request received, oldest first. */
  readonly requests: NsoRequest[];
  /** The running configuration (a live reference; tests read it, never write it). */
  readonly running: JsonObject;
  /** The name of the JSON-RPC session cookie the peer sets and reads. */
  sessionCookie: string;
  /** Open JSON-RPC sessions and transactions. */
  readonly sessions: number;
  readonly transactions: number;
  /** Commits applied so far (dry runs excluded). */
  readonly commits: number;
  inject(fault: NsoFault): void;
  clearFaults(): void;
  /** Marks a device out of sync (commits touching its config fail) or back in sync. */
  setOutOfSync(device: string, outOfSync: boolean): void;
  close(): Promise<void>;
}

const YANG_JSON = 'application/yang-data+json';
const RESTCONF_ROOT = '/restconf';
const DATA_ROOT = '/restconf/data';
/** Media types the peer answers and reads: RESTCONF JSON, plain JSON, and the legacy vnd.yang JSON types NSO users still send. */
const JSON_TYPES = /^(application\/(yang-data\+json|json|vnd\.yang\.(data|collection)\+json)|\*\/\*)$/i;
const GET_PARAMS = new Set(['depth', 'content', 'with-defaults']);
const EDIT_PARAMS = new Set([
  'dry-run',
  'dry-run-reverse',
  'commit-queue',
  'no-overwrite',
  'no-networking',
  'no-out-of-sync-check',
  'no-revision-drop',
  'rollback-id',
  'rollback-label',
  'rollback-comment',
  'label',
  'comment',
]);
const COMMIT_FLAGS =
  /^(dry-run=(cli|native|xml)|dry-run-reverse|commit-queue=(async|sync|bypass)|no-overwrite|no-networking|no-out-of-sync-check|no-revision-drop|(rollback-)?(label|comment)=.*|trace-id=.*)$/;

function loopback(name: string, address: string, description: string): JsonObject {
  return { name, description, ip: { address: { primary: { address, mask: '255.255.255.255' } } } };
}

function iosDevice(name: string, address: string, loopbacks: JsonObject[], gigabit: JsonObject[]): JsonObject {
  return {
    name,
    address,
    port: 22,
    authgroup: 'default',
    'device-type': { cli: { 'ned-id': 'cisco-ios-cli-6.90:cisco-ios-cli-6.90' } },
    state: { 'admin-state': 'unlocked' },
    config: {
      'tailf-ned-cisco-ios:hostname': name,
      'tailf-ned-cisco-ios:interface': { Loopback: loopbacks, GigabitEthernet: gigabit },
    },
  };
}

/** The tree the peer starts with: NSO's devices, C-IOS1 and C-IOS2 (Cisco IOS, with loopbacks) and ce0. Addresses are never contacted. */
export function seedTree(): JsonObject {
  return {
    'tailf-ncs:devices': {
      device: [
        iosDevice(
          'C-IOS1',
          '127.0.1.11',
          [
            loopback('0', '10.255.0.1', 'router-id'),
            loopback('100', '10.100.0.1', 'customer-A'),
            loopback('101', '10.101.0.1', 'customer-B'),
          ],
          [
            { name: '0/0', description: 'uplink to P-1', ip: { address: { primary: { address: '10.0.12.1', mask: '255.255.255.252' } } } },
            { name: '0/1', description: 'customer-A handoff' },
          ],
        ),
        iosDevice('C-IOS2', '127.0.1.12', [loopback('0', '10.255.0.2', 'router-id')], [{ name: '0/0', description: 'uplink to P-1' }]),
        iosDevice('ce0', '127.0.1.20', [], []),
      ],
    },
  };
}

/** An error RESTCONF answers: `ietf-restconf:errors`. */
class RestconfError extends Error {
  constructor(
    readonly status: number,
    readonly tag: string,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

/** A JSON-RPC error: NSO's `type` token, the standard code. */
class RpcError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly data?: JsonObject,
    readonly code = -32000,
  ) {
    super(message);
  }
}

interface Session {
  user: string;
}

interface Transaction {
  session: string;
  mode: 'read' | 'read_write';
  /** The transaction's view: running when it began, with its own changes. */
  view: JsonObject;
  ops: { op: 'set' | 'delete'; segments: Segment[]; value?: Json }[];
  validated: boolean;
}

/** What a commit asks for, from RESTCONF query parameters or JSON-RPC flags. */
interface CommitFlags {
  dryRun?: 'cli' | 'native' | 'xml';
  commitQueue?: string;
  noOutOfSyncCheck: boolean;
  noOverwrite: boolean;
  rollbackId: boolean;
}

function send(res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}, type = YANG_JSON): void {
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function restconfErrors(status: number, tag: string, message: string, path?: string): JsonObject {
  const error: JsonObject = {
    'error-type': status === 401 || status === 403 ? 'protocol' : 'application',
    'error-tag': tag,
    'error-message': message,
  };
  if (path !== undefined) error['error-path'] = path;
  return { 'ietf-restconf:errors': { error: [error] } };
}

/** The value of the cookie `name` in a `Cookie` header; another cookie whose name merely starts the same way does not count. */
function cookieValue(header: string, name: string): string | undefined {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Starts the peer on a free loopback port. */
export async function startNsoPeer(options: NsoPeerOptions = {}): Promise<NsoPeer> {
  const user = options.user ?? 'nso-admin';
  const password = options.password ?? randomBytes(9).toString('base64url');
  let running: JsonObject = options.tree ?? seedTree();
  const requests: NsoRequest[] = [];
  const faults: (NsoFault & { used: number })[] = [];
  const outOfSync = new Set<string>();
  const sessions = new Map<string, Session>();
  const transactions = new Map<number, Transaction>();
  let nextTh = 1;
  let nextRollback = 10001;
  let nextQueueItem = 1_700_000_000_000;
  let commits = 0;
  // set once the port is known
  let cookieName = 'sessionid';

  const basicUser = (header: string | undefined): string | undefined => {
    if (header?.startsWith('Basic ') !== true) return undefined;
    const text = Buffer.from(header.slice(6), 'base64').toString('utf8');
    return text === `${user}:${password}` ? user : undefined;
  };

  // ---- commits ----

  /** Devices whose config a change touches. */
  const touchedDevices = (before: JsonObject, after: JsonObject): string[] => {
    const names = new Set<string>();
    for (const change of changedLeaves(before, after)) {
      const at = change.path.findIndex((p) => p.startsWith('device '));
      if (at >= 0 && change.path[at + 1] === 'config') names.add((change.path[at] ?? '').slice('device '.length));
    }
    return [...names];
  };

  /** Applies `candidate` as the new running configuration with `flags`: a dry run answers the diff; an out-of-sync device refuses. */
  const commit = (candidate: JsonObject, flags: CommitFlags): JsonObject | undefined => {
    if (flags.dryRun !== undefined) {
      const changes = changedLeaves(running, candidate);
      if (flags.dryRun === 'native') return { 'dry-run-result': { native: { device: renderNative(changes) } } };
      if (flags.dryRun === 'xml') return { 'dry-run-result': { 'result-xml': { 'local-node': { data: renderXml(changes) } } } };
      return { 'dry-run-result': { cli: { 'local-node': { data: renderCli(changes) } } } };
    }
    if (!flags.noOutOfSyncCheck) {
      const stale = touchedDevices(running, candidate).find((d) => outOfSync.has(d));
      if (stale !== undefined) throw new RestconfError(409, 'in-use', `Network Element Driver: device ${stale}: out of sync`);
    }
    running = candidate;
    commits += 1;
    const result: JsonObject = {};
    if (flags.rollbackId) result.rollback = { id: nextRollback };
    nextRollback += 1;
    if (flags.commitQueue === 'async' || flags.commitQueue === 'sync') {
      nextQueueItem += 1;
      result['commit-queue'] = { id: nextQueueItem, status: flags.commitQueue === 'async' ? 'async' : 'completed' };
    }
    return Object.keys(result).length > 0 ? result : undefined;
  };

  const checkFlagCombination = (flags: CommitFlags, raw: { noOverwrite: boolean; noOutOfSyncCheck: boolean }): void => {
    if (raw.noOverwrite && raw.noOutOfSyncCheck)
      throw new RestconfError(400, 'invalid-value', 'no-overwrite cannot be used together with no-out-of-sync-check');
    if (flags.dryRun !== undefined && (flags.commitQueue === 'async' || flags.commitQueue === 'sync'))
      throw new RestconfError(400, 'invalid-value', 'dry-run cannot be used together with commit-queue');
    if (flags.dryRun !== undefined && flags.noOverwrite)
      throw new RestconfError(400, 'invalid-value', 'dry-run cannot be used together with no-overwrite');
  };

  const restconfFlags = (query: URLSearchParams): CommitFlags => {
    const dry = query.get('dry-run');
    if (dry !== null && !['cli', 'native', 'xml'].includes(dry))
      throw new RestconfError(400, 'invalid-value', `invalid value for dry-run: "${dry}" (cli, native or xml)`);
    const cq = query.get('commit-queue');
    if (cq !== null && !['async', 'sync', 'bypass'].includes(cq))
      throw new RestconfError(400, 'invalid-value', `invalid value for commit-queue: "${cq}" (async, sync or bypass)`);
    const flags: CommitFlags = {
      noOutOfSyncCheck: query.has('no-out-of-sync-check'),
      noOverwrite: query.has('no-overwrite'),
      rollbackId: query.get('rollback-id') === 'true',
    };
    if (dry !== null) flags.dryRun = dry as CommitFlags['dryRun'] & string;
    if (cq !== null) flags.commitQueue = cq;
    checkFlagCombination(flags, flags);
    return flags;
  };

  const rpcFlags = (value: unknown): CommitFlags => {
    if (value === undefined) return { noOutOfSyncCheck: false, noOverwrite: false, rollbackId: false };
    if (!Array.isArray(value) || !value.every((f) => typeof f === 'string'))
      throw new RpcError('rpc.method.invalid_params_type', 'Invalid params type', { param: 'flags' }, -32602);
    const flags: CommitFlags = { noOutOfSyncCheck: false, noOverwrite: false, rollbackId: false };
    for (const flag of value as string[]) {
      if (!COMMIT_FLAGS.test(flag))
        throw new RpcError(
          'rpc.method.unknown_params_value',
          'Unknown params value',
          { param: 'flags', reason: `unknown flag "${flag}"` },
          -32602,
        );
      const [name, arg] = flag.split('=');
      if (name === 'dry-run') flags.dryRun = arg as CommitFlags['dryRun'] & string;
      else if (name === 'commit-queue') flags.commitQueue = arg ?? '';
      else if (name === 'no-out-of-sync-check') flags.noOutOfSyncCheck = true;
      else if (name === 'no-overwrite') flags.noOverwrite = true;
    }
    try {
      checkFlagCombination(flags, flags);
    } catch (err) {
      throw new RpcError(
        'rpc.method.invalid_params',
        'Invalid parameters',
        { param: 'flags', reason: err instanceof Error ? err.message : String(err) },
        -32602,
      );
    }
    return flags;
  };

  // ---- RESTCONF ----

  const locateData = (root: JsonObject, rawPath: string, locateOptions: { create?: boolean } = {}): Location => {
    try {
      return locate(root, parseRestconfPath(rawPath), locateOptions);
    } catch (err) {
      if (err instanceof PathError)
        throw new RestconfError(
          err.reason === 'invalid' ? 400 : 404,
          err.reason === 'invalid' ? 'invalid-value' : 'invalid-value',
          err.reason === 'invalid' ? err.message : 'uri keypath not found',
          `/${rawPath}`,
        );
      throw err;
    }
  };

  const readBody = (req: http.IncomingMessage, body: string): JsonObject => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if (!JSON_TYPES.test(type) || type === '*/*')
      throw new RestconfError(
        415,
        'invalid-value',
        `Content-Type "${type}" is not supported; the lab peer reads application/yang-data+json`,
      );
    let parsed: unknown;
    try {
      parsed = JSON.parse(body === '' ? '{}' : body);
    } catch {
      throw new RestconfError(400, 'malformed-message', 'the body is not valid JSON');
    }
    if (!isObject(parsed)) throw new RestconfError(400, 'malformed-message', 'the body must be a JSON object');
    return parsed;
  };

  /** The one member of an edit body, and that it names the target (local names compared; a module, if given, must match). */
  const bodyMember = (body: JsonObject, expected?: Location): [string, Json] => {
    const entries = Object.entries(body);
    if (entries.length !== 1)
      throw new RestconfError(400, 'malformed-message', `the body must hold exactly one member, not ${entries.length}`);
    const [member, value] = entries[0] as [string, Json];
    if (expected !== undefined) {
      const [module, local] = member.includes(':') ? member.split(':') : [undefined, member];
      const [targetModule, targetLocal] = expected.qualified.split(':');
      if (local !== targetLocal || (module !== undefined && module !== targetModule))
        throw new RestconfError(400, 'malformed-message', `the body names "${member}", not the target ${expected.qualified}`);
    }
    return [member, value];
  };

  const entryFrom = (value: Json, what: string): JsonObject => {
    const entry = Array.isArray(value) && value.length === 1 ? value[0] : value;
    if (!isObject(entry)) throw new RestconfError(400, 'malformed-message', `${what} must be a list entry (an array with one object)`);
    return entry;
  };

  const deviceAction = (rawPath: string, query: URLSearchParams): JsonObject | undefined => {
    const m = /^tailf-ncs:devices(?:\/device=([^/]+))?\/(sync-from|check-sync)$/.exec(rawPath);
    if (m === null) return undefined;
    if ([...query.keys()].length > 0) throw new RestconfError(400, 'invalid-value', 'query parameters are not supported for actions');
    const action = m[2];
    const devicesNode = running['tailf-ncs:devices'];
    const all =
      isObject(devicesNode) && Array.isArray(devicesNode.device) ? devicesNode.device.filter(isObject).map((d) => String(d.name)) : [];
    const one = m[1] === undefined ? undefined : decodeURIComponent(m[1]);
    if (one !== undefined && !all.includes(one)) throw new RestconfError(404, 'invalid-value', 'uri keypath not found', `/${rawPath}`);
    const results = (one === undefined ? all : [one]).map((device): JsonObject => {
      if (action === 'sync-from') {
        outOfSync.delete(device);
        return { device, result: true };
      }
      return outOfSync.has(device)
        ? { device, result: 'out-of-sync', info: 'got: 1d7f-20a9-41c2 expected: 1c0e-9f3a-7b21' }
        : { device, result: 'in-sync' };
    });
    if (one !== undefined)
      return { 'tailf-ncs:output': Object.fromEntries(Object.entries(results[0] ?? {}).filter(([k]) => k !== 'device')) };
    return { 'tailf-ncs:output': { 'sync-result': results } };
  };

  const depthLimited = (value: Json, depth: number): Json => {
    if (depth <= 1) return isObject(value) ? {} : Array.isArray(value) && value.every(isObject) ? value.map(() => ({})) : value;
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, depthLimited(v, depth - 1)]));
    if (Array.isArray(value) && value.every(isObject)) return value.map((e) => depthLimited(e, depth));
    return value;
  };

  const restconf = (req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: string): void => {
    if (basicUser(req.headers.authorization) === undefined) {
      send(res, 401, restconfErrors(401, 'access-denied', 'access denied'), { 'www-authenticate': 'Basic realm="restconf"' });
      return;
    }
    const method = req.method ?? 'GET';
    const accept = (req.headers.accept ?? '*/*').split(',').map((a) => a.split(';')[0]?.trim() ?? '');
    if (!accept.some((a) => JSON_TYPES.test(a)))
      throw new RestconfError(
        406,
        'invalid-value',
        `cannot answer ${req.headers.accept ?? ''}; the lab peer answers application/yang-data+json`,
      );
    const collection = accept.some((a) => /vnd\.yang\.collection\+json/i.test(a));
    if (url.pathname === RESTCONF_ROOT || url.pathname === `${RESTCONF_ROOT}/`) {
      if (method !== 'GET' && method !== 'HEAD')
        throw new RestconfError(405, 'operation-not-supported', `${method} is not allowed on the root resource`);
      send(res, 200, { 'ietf-restconf:restconf': { data: {}, operations: {}, 'yang-library-version': '2019-01-04' } });
      return;
    }
    if (url.pathname !== DATA_ROOT && !url.pathname.startsWith(`${DATA_ROOT}/`))
      throw new RestconfError(404, 'invalid-value', 'uri keypath not found', url.pathname);
    const rawPath = url.pathname.slice(DATA_ROOT.length + 1);
    const query = url.searchParams;
    if (method === 'POST') {
      const output = deviceAction(rawPath, query);
      if (output !== undefined) {
        send(res, 200, output);
        return;
      }
    }
    const allowed = method === 'GET' || method === 'HEAD' ? GET_PARAMS : EDIT_PARAMS;
    for (const name of query.keys())
      if (!allowed.has(name)) throw new RestconfError(400, 'invalid-value', `unknown query parameter "${name}" for ${method}`);

    if (method === 'GET' || method === 'HEAD') {
      const depth = query.get('depth');
      if (depth !== null && depth !== 'unbounded' && !/^[1-9]\d*$/.test(depth))
        throw new RestconfError(400, 'invalid-value', `invalid value for depth: "${depth}"`);
      const content = query.get('content');
      if (content !== null && !['config', 'nonconfig', 'all'].includes(content))
        throw new RestconfError(400, 'invalid-value', `invalid value for content: "${content}"`);
      const target = locateData(running, rawPath);
      if (rawPath === '') {
        // the datastore is depth 0: its top-level nodes are depth 1
        const limited =
          depth !== null && depth !== 'unbounded'
            ? Object.fromEntries(Object.entries(running).map(([k, v]) => [k, depthLimited(v, Number(depth))]))
            : running;
        send(res, 200, { 'ietf-restconf:data': limited });
        return;
      }
      if (target.kind === 'missing') {
        // an absent list of the model reads as empty (204); anything else is not there
        if (target.index === undefined && isKnownList(target.qualified.split(':')[1] ?? '')) send(res, 204);
        else throw new RestconfError(404, 'invalid-value', 'uri keypath not found', `/${rawPath}`);
        return;
      }
      if (target.value === undefined || (Array.isArray(target.value) && target.value.length === 0)) {
        send(res, 204);
        return;
      }
      let value: Json = target.kind === 'entry' ? [target.value] : target.value;
      if (depth !== null && depth !== 'unbounded') value = depthLimited(value, Number(depth));
      const answer = collection && target.kind === 'list' ? { collection: { [target.qualified]: value } } : { [target.qualified]: value };
      send(res, 200, answer, {}, collection && target.kind === 'list' ? 'application/vnd.yang.collection+json' : YANG_JSON);
      return;
    }

    const flags = restconfFlags(query);
    const candidate = clone(running);
    let created = false;
    let location: string | undefined;
    if (method === 'POST') {
      const parsed = readBody(req, body);
      const parent = locateData(candidate, rawPath);
      if (parent.kind === 'missing') throw new RestconfError(404, 'invalid-value', 'uri keypath not found', `/${rawPath}`);
      const container = rawPath === '' ? candidate : parent.value;
      if (!isObject(container))
        throw new RestconfError(400, 'invalid-value', `/${rawPath} is a ${parent.kind}; POST creates a child of a container or list entry`);
      const [named, value] = bodyMember(parsed);
      const local = named.includes(':') ? (named.split(':')[1] ?? named) : named;
      // stored and addressed unqualified when the child is of its parent's module (RFC 7951)
      const member = named.includes(':') && named.split(':')[0] === parent.module && rawPath !== '' ? local : named;
      const existing = Object.keys(container).find((k) => k === member || k.split(':').pop() === local);
      const key = existing ?? member;
      if (Array.isArray(value) && value.every(isObject) && (isKnownList(local) || Array.isArray(container[key]))) {
        const entry = entryFrom(value, `"${member}"`);
        const list = Array.isArray(container[key]) ? (container[key] as Json[]) : [];
        const keys = keysOf(local).map((k) => entry[k]);
        if (keys.some((k) => k === undefined))
          throw new RestconfError(400, 'missing-element', `the entry lacks its key ${keysOf(local).join(', ')}`);
        if (list.some((e) => isObject(e) && keysOf(local).every((k, i) => String(e[k]) === String(keys[i]))))
          throw new RestconfError(409, 'data-exists', 'object already exists', `/${rawPath}/${member}=${keys.join(',')}`);
        list.push(entry);
        container[key] = list;
        location = `${rawPath === '' ? '' : `${rawPath}/`}${member}=${keys.map((k) => encodeURIComponent(String(k))).join(',')}`;
      } else {
        if (existing !== undefined) throw new RestconfError(409, 'data-exists', 'object already exists', `/${rawPath}/${member}`);
        container[member] = value;
        location = `${rawPath === '' ? '' : `${rawPath}/`}${member}`;
      }
      created = true;
    } else if (method === 'PUT' || method === 'PATCH') {
      const parsed = readBody(req, body);
      if (rawPath === '')
        throw new RestconfError(405, 'operation-not-supported', `${method} of the whole datastore is not supported by the lab peer`);
      const target = locateData(candidate, rawPath, { create: method === 'PUT' });
      const [, value] = bodyMember(parsed, target);
      if (method === 'PATCH' && target.kind === 'missing')
        throw new RestconfError(404, 'invalid-value', 'uri keypath not found', `/${rawPath}`);
      const segments = parseRestconfPath(rawPath);
      const lastKeys = segments[segments.length - 1]?.keys;
      if (lastKeys !== undefined) {
        const entry = entryFrom(value, 'the body');
        const local = target.qualified.split(':')[1] ?? '';
        if (keysOf(local).some((k, i) => String(entry[k]) !== lastKeys[i]))
          throw new RestconfError(
            400,
            'invalid-value',
            `the key in the body (${keysOf(local)
              .map((k) => String(entry[k]))
              .join(',')}) differs from the key in the path (${lastKeys.join(',')})`,
          );
        const list = Array.isArray(target.parent[target.member]) ? (target.parent[target.member] as Json[]) : [];
        target.parent[target.member] = list;
        if (target.kind === 'missing') {
          list.push(entry);
          created = true;
        } else if (method === 'PUT') list[target.index ?? 0] = entry;
        else merge(list[target.index ?? 0] as JsonObject, entry);
      } else if (method === 'PATCH' && isObject(target.value) && isObject(value)) merge(target.value, value);
      else {
        created = target.kind === 'missing';
        target.parent[target.member] = value;
      }
    } else if (method === 'DELETE') {
      const target = locateData(candidate, rawPath);
      if (target.kind === 'missing' || rawPath === '')
        throw new RestconfError(404, 'invalid-value', 'uri keypath not found', `/${rawPath}`);
      if (target.kind === 'entry') (target.parent[target.member] as Json[]).splice(target.index ?? 0, 1);
      else delete target.parent[target.member];
    } else throw new RestconfError(405, 'operation-not-supported', `${method} is not supported`);

    const result = commit(candidate, flags);
    const headers: Record<string, string> = {};
    if (created && location !== undefined && flags.dryRun === undefined)
      headers.location = `http://${req.headers.host ?? '127.0.0.1'}${DATA_ROOT}/${location}`;
    if (flags.dryRun !== undefined) send(res, created ? 201 : 200, result, headers);
    else if (result !== undefined) send(res, created ? 201 : 200, { 'tailf-restconf:result': result }, headers);
    else send(res, created ? 201 : 204, undefined, headers);
  };

  // ---- JSON-RPC ----

  const transaction = (params: JsonObject, session: string): [number, Transaction] => {
    const th = params.th;
    if (typeof th !== 'number') throw new RpcError('rpc.method.missing_params', 'Missing params', { param: 'th' }, -32602);
    const trans = transactions.get(th);
    if (trans === undefined || trans.session !== session)
      throw new RpcError('rpc.method.invalid_params', 'Invalid parameters', { param: 'th', reason: `no transaction ${th}` }, -32602);
    return [th, trans];
  };

  const keypath = (params: JsonObject): Segment[] => {
    if (typeof params.path !== 'string') throw new RpcError('rpc.method.missing_params', 'Missing params', { param: 'path' }, -32602);
    try {
      return parseKeypath(params.path);
    } catch (err) {
      throw new RpcError(
        'rpc.method.invalid_params',
        'Invalid parameters',
        { param: 'path', reason: err instanceof Error ? err.message : String(err) },
        -32602,
      );
    }
  };

  const locateKeypath = (root: JsonObject, segments: Segment[], path: string, create = false): Location => {
    try {
      return locate(root, segments, { lenient: true, create });
    } catch (err) {
      if (err instanceof PathError)
        throw new RpcError(
          err.reason === 'invalid' ? 'rpc.method.invalid_params' : 'data.not_found',
          err.reason === 'invalid' ? 'Invalid parameters' : 'Data not found',
          { param: 'path', reason: `${path}: ${err.message}` },
          err.reason === 'invalid' ? -32602 : -32000,
        );
      throw err;
    }
  };

  const applyOp = (root: JsonObject, op: Transaction['ops'][number], path: string): void => {
    const target = locateKeypath(root, op.segments, path, op.op === 'set');
    if (op.op === 'delete') {
      if (target.kind === 'missing') throw new RpcError('data.not_found', 'Data not found', { reason: `${path} does not exist` });
      if (target.kind === 'entry') (target.parent[target.member] as Json[]).splice(target.index ?? 0, 1);
      else delete target.parent[target.member];
      return;
    }
    if (
      target.kind === 'container' ||
      target.kind === 'list' ||
      target.kind === 'entry' ||
      (target.kind === 'missing' && target.index !== undefined)
    ) {
      throw new RpcError('rpc.method.failed', 'Method failed', { reason: `${path} is not a leaf` });
    }
    target.parent[target.member] = op.value ?? null;
  };

  const methods: Record<string, (params: JsonObject, session: string) => Json> = {
    new_trans: (params, session) => {
      const mode = params.mode ?? 'read';
      if (mode !== 'read' && mode !== 'read_write')
        throw new RpcError('rpc.method.unknown_params_value', 'Unknown params value', { param: 'mode' }, -32602);
      const th = nextTh;
      nextTh += 1;
      transactions.set(th, { session, mode, view: clone(running), ops: [], validated: false });
      return { th };
    },
    delete_trans: (params, session) => {
      const [th] = transaction(params, session);
      transactions.delete(th);
      return {};
    },
    get_value: (params, session) => {
      const [, trans] = transaction(params, session);
      const path = String(params.path);
      const target = locateKeypath(trans.view, keypath(params), path);
      if (target.kind !== 'leaf' && target.kind !== 'leaf-list')
        throw new RpcError('data.not_found', 'Data not found', { reason: `${path} is not a leaf with a value` });
      return { value: Array.isArray(target.value) ? target.value.map(String).join(' ') : String(target.value) };
    },
    set_value: (params, session) => {
      const [, trans] = transaction(params, session);
      if (trans.mode !== 'read_write') throw new RpcError('rpc.method.failed', 'Method failed', { reason: 'the transaction is read-only' });
      const value = params.value;
      if (value === undefined) throw new RpcError('rpc.method.missing_params', 'Missing params', { param: 'value' }, -32602);
      const op: Transaction['ops'][number] =
        value === null
          ? { op: 'delete', segments: keypath(params) }
          : { op: 'set', segments: keypath(params), value: typeof value === 'object' ? value : String(value) };
      applyOp(trans.view, op, String(params.path));
      trans.ops.push(op);
      trans.validated = false;
      return {};
    },
    delete: (params, session) => {
      const [, trans] = transaction(params, session);
      if (trans.mode !== 'read_write') throw new RpcError('rpc.method.failed', 'Method failed', { reason: 'the transaction is read-only' });
      const op: Transaction['ops'][number] = { op: 'delete', segments: keypath(params) };
      applyOp(trans.view, op, String(params.path));
      trans.ops.push(op);
      trans.validated = false;
      return {};
    },
    validate_commit: (params, session) => {
      const [, trans] = transaction(params, session);
      rpcFlags(params.flags);
      trans.validated = true;
      return {};
    },
    commit: (params, session) => {
      const [th, trans] = transaction(params, session);
      if (!trans.validated)
        throw new RpcError('rpc.method.failed', 'Method failed', { reason: 'commit must be preceded by validate_commit' });
      const flags = rpcFlags(params.flags);
      // the transaction's changes replayed on the running configuration as it is now
      const candidate = clone(running);
      for (const op of trans.ops) applyOp(candidate, op, '(commit)');
      let result: JsonObject | undefined;
      try {
        result = commit(candidate, flags);
      } catch (err) {
        // a failed commit leaves the transaction for the client to delete
        if (err instanceof RestconfError) throw new RpcError('rpc.method.failed', 'Method failed', { reason: err.message });
        throw err;
      }
      transactions.delete(th);
      if (flags.dryRun !== undefined) return result ?? {};
      const out: JsonObject = {};
      const queue = result?.['commit-queue'];
      if (isObject(queue)) out.commit_queue_id = queue.id ?? null;
      if (params['rollback-id'] !== false) out['rollback-id'] = { fixed: nextRollback - 1 };
      return out;
    },
  };

  const jsonrpc = (req: http.IncomingMessage, res: http.ServerResponse, body: string, log: NsoRequest): void => {
    let id: Json = null;
    const answer = (payload: JsonObject, headers: Record<string, string> = {}) =>
      send(res, 200, { jsonrpc: '2.0', id, ...payload }, headers, 'application/json');
    try {
      let request: unknown;
      try {
        request = JSON.parse(body);
      } catch {
        throw new RpcError('rpc.request.parse_error', 'Parse error', undefined, -32700);
      }
      if (!isObject(request) || request.jsonrpc !== '2.0' || typeof request.method !== 'string')
        throw new RpcError('rpc.request.invalid', 'Invalid request', undefined, -32600);
      id = request.id ?? null;
      const method = request.method;
      log.rpc = method;
      const params = request.params === undefined ? {} : request.params;
      if (!isObject(params)) throw new RpcError('rpc.method.invalid_params_type', 'Invalid params type', { param: 'params' }, -32602);
      if (method === 'login') {
        for (const p of Object.keys(params))
          if (!['user', 'passwd', 'ack_warning'].includes(p))
            throw new RpcError('rpc.method.unexpected_params', 'Unexpected params', { param: p }, -32602);
        // NSO's login takes its credentials in params only: Basic credentials on the request do not log in
        if (params.user !== user || params.passwd !== password) throw new RpcError('rpc.method.failed', 'Method failed');
        const sessionId = `sess${BigInt(`0x${randomBytes(8).toString('hex')}`).toString()}`;
        sessions.set(sessionId, { user });
        answer({ result: {} }, { 'set-cookie': `${cookieName}=${sessionId}; path=/; HttpOnly` });
        return;
      }
      const cookie = cookieValue(req.headers.cookie ?? '', cookieName);
      if (cookie === undefined) throw new RpcError('session.missing_sessionid', 'Missing sessionid');
      if (!sessions.has(cookie)) throw new RpcError('session.invalid_sessionid', 'Invalid sessionid');
      if (method === 'logout') {
        sessions.delete(cookie);
        for (const [th, trans] of transactions) if (trans.session === cookie) transactions.delete(th);
        answer({ result: {} });
        return;
      }
      const handler = methods[method];
      if (handler === undefined) throw new RpcError('rpc.method.not_found', 'Method not found', undefined, -32601);
      answer({ result: handler(params, cookie) });
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      const error: JsonObject = { code: err.code, type: err.type, message: err.message };
      if (err.data !== undefined) error.data = err.data;
      answer({ error });
    }
  };

  // ---- the server ----

  const faultFor = (log: NsoRequest): (NsoFault & { used: number }) | undefined =>
    faults.find((f) => {
      if (f.times !== undefined && f.used >= f.times) return false;
      const m = f.match ?? {};
      if (m.method !== undefined && m.method !== log.method) return false;
      if (m.path !== undefined && !(typeof m.path === 'string' ? log.path.startsWith(m.path) : m.path.test(log.path))) return false;
      if (m.rpc !== undefined && m.rpc !== log.rpc) return false;
      return true;
    });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://peer');
      const log: NsoRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body };
      if (url.pathname === '/jsonrpc' || url.pathname.startsWith('/jsonrpc/')) {
        const m = /"method"\s*:\s*"([^"]+)"/.exec(body);
        if (m?.[1] !== undefined) log.rpc = m[1];
      }
      requests.push(log);
      const handle = () => {
        try {
          if (log.path === '/jsonrpc' || log.path.startsWith('/jsonrpc/')) {
            if (log.method !== 'POST') throw new RestconfError(405, 'operation-not-supported', 'JSON-RPC takes POST');
            jsonrpc(req, res, body, log);
          } else if (log.path === RESTCONF_ROOT || log.path.startsWith(`${RESTCONF_ROOT}/`)) restconf(req, res, url, body);
          else send(res, 404, restconfErrors(404, 'invalid-value', 'uri keypath not found'));
        } catch (err) {
          if (err instanceof RestconfError) send(res, err.status, restconfErrors(err.status, err.tag, err.message, err.path));
          else send(res, 500, restconfErrors(500, 'operation-failed', err instanceof Error ? err.message : String(err)));
        }
      };
      const fault = faultFor(log);
      if (fault === undefined) {
        handle();
        return;
      }
      fault.used += 1;
      const act = () => {
        if (fault.reset === true) req.socket.destroy();
        else if (fault.status !== undefined)
          send(res, fault.status, restconfErrors(fault.status, 'operation-failed', `injected fault: ${fault.status}`));
        else handle();
      };
      if (fault.delayMs !== undefined) setTimeout(act, fault.delayMs).unref();
      else act();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  cookieName = options.sessionCookie === 'sessionid' ? 'sessionid' : `sessionid_${port}`;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    user,
    password,
    sessionCookie: cookieName,
    requests,
    get running() {
      return running;
    },
    get sessions() {
      return sessions.size;
    },
    get transactions() {
      return transactions.size;
    },
    get commits() {
      return commits;
    },
    inject: (fault) => {
      faults.push({ ...fault, used: 0 });
    },
    clearFaults: () => {
      faults.splice(0);
    },
    setOutOfSync: (device, flag) => {
      if (flag) outOfSync.add(device);
      else outOfSync.delete(device);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
