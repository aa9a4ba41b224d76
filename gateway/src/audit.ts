import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError, HEADERS, isAuditedOutcome, pathParams } from '@nap/contracts';
import type { AuditAuthMethod, AuditEntry, AuditPart, OperationDef } from '@nap/contracts';
import type { AuditRecorder, RawResult } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { isRecord } from '@nap/util';
import { createClientAddress } from './client-address';
import type { ClientAddress } from './client-address';
import type { RequestLocals } from './exchange';

/** What the audit step reads of a request: the operation, its parts, and what the gateway learnt of it. */
export interface AuditedRequest {
  req: IncomingMessage;
  op: OperationDef;
  method: string;
  params: Record<string, string>;
  locals: RequestLocals;
}

/** The audit step of the operation path. */
export interface AuditTrail {
  /**
   * Records a success answer when it must be (a change), before it is written: resolves once the
   * record is durable.
   *
   * Errors: `AUDIT_UNAVAILABLE` when it could not be made durable: the change is done, but its
   * success is not answered.
   */
  recordSuccess(request: AuditedRequest, result: RawResult): Promise<void>;
  /**
   * Records a failure answer when it must be (a change, or a refusal: 401, 403, 429, reads
   * included). A failure that cannot be recorded is logged with its record, and answered as it is.
   */
  recordFailure(request: AuditedRequest, error: AppError): Promise<void>;
}

export interface AuditTrailOptions {
  /** Where records go; `false` records nothing (measurements of the audit's cost only: the gateway warns at start). */
  recorder: AuditRecorder | false;
  logger: Logger;
  /**
   * `NAP_TRUST_PROXY`: the client's address is the one the proxy saw, the last `X-Forwarded-For`
   * entry (the address login throttling counts by); the entries before it are the client's word.
   */
  trustProxy?: boolean;
}

/** Operations whose body names who is logging in, and how. */
const LOGINS: Readonly<Record<string, AuditAuthMethod>> = { 'admin.login': 'password', 'admin.oauthToken': 'oauth' };
/** Operations that end a browser sign-in (OIDC, SAML): who signed in is the account the admin service names. */
const BROWSER_SIGN_INS: ReadonlySet<string> = new Set(['admin.ssoCallback', 'admin.samlAcs']);
/** Longest user agent kept. */
const USER_AGENT_LIMIT = 256;
/** Largest success answer read for the id and name of what a request created. */
const ANSWER_READ_LIMIT = 64 * 1024;

/** How a route names its target: the kind, and the parameter holding its id, or the caller's own account. */
interface RouteTarget {
  kind: string;
  param?: string;
  /** A `/whoami` route: it acts on the caller's own account. */
  self?: true;
}

/**
 * Builds and records the audit entry of a request at the gateway, where the caller, the way it
 * authenticated, the source and the outcome are all known; the owning service adds what only it
 * knows (the target's name, the members an update changed) in the `nap-audit` header of its answer.
 * Reads answered 2xx cost one set lookup and record nothing.
 */
export function createAuditTrail(options: AuditTrailOptions): AuditTrail {
  const { recorder, logger } = options;
  const clientAddress = createClientAddress({ trustProxy: options.trustProxy ?? false });
  const targets = new Map<string, RouteTarget>();

  /** The route's target, worked out once per operation. */
  function routeOf(op: AuditedRequest['op']): RouteTarget {
    let route = targets.get(op.id);
    if (route === undefined) {
      route = routeTarget(op);
      targets.set(op.id, route);
    }
    return route;
  }

  function targetOf(
    request: AuditedRequest,
    part: AuditPart | undefined,
    answer: Record<string, unknown> | undefined,
  ): AuditEntry['target'] {
    const { op, params, locals } = request;
    const route = routeOf(op);
    const target: NonNullable<AuditEntry['target']> = { kind: route.kind };
    if (route.self && locals.caller) return { ...target, id: locals.caller.id, name: locals.caller.username, ...part?.target };
    const id = route.param !== undefined ? params[route.param] : idIn(answer);
    if (id !== undefined) target.id = id;
    // a login names the account it tries: a failed one is recorded against it too; a refused job
    // start (no job made) names the workflow it asked for, as the job of a start is named
    const name =
      namedBy(locals.body, op.auditName) ??
      nameIn(locals.body, route.kind) ??
      nameIn(answer, route.kind) ??
      (op.id in LOGINS ? loginName(locals.body) : undefined) ??
      (route.kind === 'job' ? workflowNamed(locals.body) : undefined);
    if (name !== undefined) target.name = name;
    return part?.target ? { ...target, ...part.target } : target;
  }

  function entryOf(
    request: AuditedRequest,
    outcome: AuditEntry['outcome'],
    part?: AuditPart,
    answer?: Record<string, unknown>,
  ): AuditEntry {
    const { req, op, method, locals } = request;
    const entry: AuditEntry = {
      entryId: randomUUID(),
      timestamp: new Date().toISOString(),
      actor: actorOf(op, locals, outcome.status, part),
      operation: op.id,
      method,
      route: op.http?.path ?? op.id,
      target: targetOf(request, part, answer),
      outcome,
      requestId: locals.requestId,
      source: sourceOf(req, clientAddress),
    };
    if (part?.changes !== undefined && part.changes.length > 0) entry.changes = part.changes;
    return entry;
  }

  async function durably(entry: AuditEntry): Promise<void> {
    if (recorder === false) return;
    try {
      await recorder.record(entry);
    } catch (first) {
      // one more try: a JetStream leader moving, a reconnect under way
      await recorder.record(entry).catch(() => {
        throw first;
      });
    }
  }

  /**
   * The parts of a request that acts on several things (its operation's `auditEach`): one per id
   * its body lists, each with what the service said of that thing (`each`), else its kind and id.
   * Undefined for a request on one thing, and for one whose body was refused: its list is bounded by
   * nothing yet (a refused body of 90,000 ids is one record, not 90,000).
   */
  function partsOfEach(request: AuditedRequest, part: AuditPart | undefined): AuditPart[] | undefined {
    if (request.locals.validated !== true) return undefined;
    const member = request.op.auditEach;
    const ids = member !== undefined && isRecord(request.locals.body) ? request.locals.body[member] : undefined;
    if (!Array.isArray(ids) || ids.length === 0) return undefined;
    const told = new Map<string, AuditPart>();
    for (const one of part?.each ?? []) if (one.target?.id !== undefined) told.set(one.target.id, one);
    const { kind } = routeOf(request.op);
    return ids.map((id) => told.get(String(id)) ?? { target: { kind, id: String(id) } });
  }

  /**
   * One more record per device a request runs on (its operation's `auditDevices`), each naming the
   * device; none for a request on no device list, or whose body was refused (as {@link partsOfEach}).
   */
  function deviceEntries(request: AuditedRequest, outcome: AuditEntry['outcome']): AuditEntry[] {
    if (request.locals.validated !== true) return [];
    const member = request.op.auditDevices;
    const listed = member !== undefined && isRecord(request.locals.body) ? request.locals.body[member] : undefined;
    if (!Array.isArray(listed)) return [];
    const names = new Set<string>();
    for (const name of listed) if (typeof name === 'string' && name !== '') names.add(name);
    return [...names].map((name) => ({ ...entryOf(request, outcome), target: { kind: 'device', name } }));
  }

  return {
    async recordSuccess(request, result) {
      if (!isAuditedOutcome(request.op, request.method, result.status)) return;
      const part = partOf(result, logger);
      const outcome = { status: result.status };
      // several things: the ids the body lists (auditEach), else what the handler named one by one (an import)
      const each = partsOfEach(request, part) ?? (part?.each !== undefined && part.each.length > 0 ? part.each : undefined);
      const entries = each?.map((one) => entryOf(request, outcome, one)) ?? [
        entryOf(request, outcome, part, part?.target?.id === undefined ? answerOf(result) : undefined),
      ];
      entries.push(...deviceEntries(request, outcome));
      try {
        await Promise.all(entries.map(durably));
      } catch (err) {
        logger.error({ err, audit: entries[0] }, 'The audit record of a change could not be stored; its success is not answered');
        throw new AppError(
          'AUDIT_UNAVAILABLE',
          `${request.method} ${entries[0]?.route ?? request.op.id} was carried out, but its audit record could not be stored, so its success is not answered; read the state before trying again (request ${request.locals.requestId})`,
          { cause: err },
        );
      }
    },
    async recordFailure(request, error) {
      if (!isAuditedOutcome(request.op, request.method, error.status)) return;
      const outcome = { status: error.status, code: error.code };
      const entries = partsOfEach(request, undefined)?.map((one) => entryOf(request, outcome, one)) ?? [entryOf(request, outcome)];
      entries.push(...deviceEntries(request, outcome));
      const failed = (await Promise.allSettled(entries.map(durably))).filter((r) => r.status === 'rejected');
      if (failed.length > 0) {
        const [first] = failed;
        logger.error(
          { err: first?.reason, audit: entries[0], failed: failed.length },
          'The audit record of a failed request could not be stored',
        );
      }
    },
  };
}

/** Who acted: the caller with how it authenticated, the account a login named, or whoever the credentials claimed. */
function actorOf(op: OperationDef, locals: RequestLocals, status: number, part: AuditPart | undefined): AuditEntry['actor'] {
  const via = locals.credentials?.via;
  if (locals.caller) {
    return { kind: 'account', username: locals.caller.username, accountId: locals.caller.id, auth: via ?? 'none' };
  }
  if (BROWSER_SIGN_INS.has(op.id)) {
    // the identity provider said who it was: the service names the account in its target
    const target = part?.target;
    if (status >= 400 || target?.kind !== 'account' || target.name === undefined)
      return { kind: 'anonymous', username: 'unknown', auth: 'sso' };
    return { kind: 'account', username: target.name, ...(target.id !== undefined ? { accountId: target.id } : {}), auth: 'sso' };
  }
  const login = LOGINS[op.id];
  if (login !== undefined) {
    const username = loginName(locals.body);
    const actor: AuditEntry['actor'] = { kind: 'account', username: username ?? 'unknown', auth: login };
    // the login answered who it was: the service names the account in its target
    if (status < 400 && part?.target?.kind === 'account' && part.target.id !== undefined) actor.accountId = part.target.id;
    else if (status >= 400) actor.kind = 'anonymous';
    return actor;
  }
  return { kind: 'anonymous', username: locals.credentials?.username ?? 'unknown', auth: via ?? 'none' };
}

/** The username a login body names (`{ user: { username } }`, `{ username }`, `client_id` of the client credentials grant). */
function loginName(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const user = isRecord(body.user) ? body.user : body;
  const name = user.username ?? body.client_id;
  return typeof name === 'string' ? name.slice(0, 256) : undefined;
}

function sourceOf(req: IncomingMessage, clientAddress: ClientAddress): NonNullable<AuditEntry['source']> {
  const source: NonNullable<AuditEntry['source']> = {};
  const address = clientAddress(req);
  if (address) source.address = address;
  const agent = req.headers['user-agent'];
  if (typeof agent === 'string') source.userAgent = agent.slice(0, USER_AGENT_LIMIT);
  return source;
}

/** What the owning service told the audit trail (`nap-audit`), when it did. */
function partOf(result: RawResult, logger: Logger): AuditPart | undefined {
  const header = result.headers[HEADERS.audit];
  if (header === undefined) return undefined;
  try {
    const part: unknown = JSON.parse(header);
    return isRecord(part) ? (part as AuditPart) : undefined;
  } catch (err) {
    logger.warn({ err }, 'A service sent an audit part that is not JSON; the record has the gateway part only');
    return undefined;
  }
}

/** The success answer as an object, when it is small JSON (to find what was created). */
function answerOf(result: RawResult): Record<string, unknown> | undefined {
  const type = result.headers[HEADERS.contentType];
  if ((type !== undefined && !type.includes('json')) || result.data.length === 0 || result.data.length > ANSWER_READ_LIMIT)
    return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(result.data.buffer, result.data.byteOffset, result.data.byteLength).toString('utf8'));
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The id of what an answer describes: `_id` or `id`, of the answer or of its `data`. */
function idIn(answer: Record<string, unknown> | undefined): string | undefined {
  if (answer === undefined) return undefined;
  for (const holder of [answer, isRecord(answer.data) ? answer.data : undefined]) {
    const id = holder?._id ?? holder?.id;
    if (typeof id === 'string' || typeof id === 'number') return String(id);
  }
  return undefined;
}

/** The workflow a job start's body names (`{ workflow: <name>, options }`). */
function workflowNamed(body: unknown): string | undefined {
  return isRecord(body) && typeof body.workflow === 'string' ? body.workflow.slice(0, 256) : undefined;
}

/**
 * The name in a body or answer: `name`, or the `name` of its member of the target's kind (`{ group: {
 * name } }`) or of `data`; an account's name is its `username` (`{ account: { username } }`).
 */
/** The text of the body member an operation names its target by (its catalog `auditName`). */
function namedBy(body: unknown, member: string | undefined): string | undefined {
  const value = member !== undefined && isRecord(body) ? body[member] : undefined;
  return typeof value === 'string' ? value.slice(0, 256) : undefined;
}

function nameIn(value: unknown, kind: string): string | undefined {
  if (!isRecord(value)) return undefined;
  for (const holder of [value, value[kind], value.data]) {
    if (!isRecord(holder)) continue;
    const name = kind === 'account' ? (holder.name ?? holder.username) : holder.name;
    if (typeof name === 'string') return name.slice(0, 256);
  }
  return undefined;
}

/**
 * The kind of target a route acts on and the parameter naming it: the last `:param`
 * (`/user-management/groups/:groupId` → group, groupId; `/automation-studio/automations/:id` →
 * automation, id; `/workflow_engine/startJobWithOptions/:workflow` → workflow), or the last word of
 * a route without one that is not an action word (`/user-management/groups` → group,
 * `/operations-manager/jobs/cancel` → job); a login, the account it names.
 */
export function routeTarget(op: Pick<OperationDef, 'id' | 'name' | 'http' | 'auditKind'>): RouteTarget {
  // a login acts on the account it names (the admin service names it by id once it answered who it was)
  if (op.id in LOGINS) return { kind: 'account' };
  const path = op.http?.path;
  if (path === undefined) return { kind: op.auditKind ?? op.name };
  if (path === '/whoami' || path.startsWith('/whoami/')) return { kind: op.auditKind ?? 'account', self: true };
  const derived = derivedTarget(path, op.name);
  return op.auditKind === undefined ? derived : { ...derived, kind: op.auditKind };
}

/** {@link routeTarget} from the route alone. */
function derivedTarget(path: string, name: string): RouteTarget {
  const segments = path.split('/').filter((s) => s !== '');
  const params = pathParams(path);
  const param = params[params.length - 1];
  if (param !== undefined) {
    const at = segments.indexOf(`:${param}`);
    const named = /^(.+?)(Id|ID|Name|_id|_name)$/.exec(param)?.[1];
    const before = segments
      .slice(0, at)
      .reverse()
      .find((s) => !s.startsWith(':'));
    // `groupId` names a group; a generic `id` or `name`, the collection before it; any other, itself (`:workflow`)
    const generic = param === 'id' || param === 'name' || param === '_id';
    const kind = named ?? (generic && before !== undefined ? singular(before) : param);
    return { kind: kebab(withoutVerb(kind)), param };
  }
  // what a route without a parameter acts on: its last word, or the collection an action word follows
  // (`/operations-manager/jobs/cancel` → job, `/prebuilts/import/validation` → prebuilt)
  const noun = [...segments].reverse().find((s) => !ACTION_WORDS.has(s)) ?? segments[segments.length - 1] ?? name;
  return { kind: kebab(singular(withoutVerb(noun))) };
}

/**
 * A route word named after its action, without the verb (`createInventoryDevice` → `InventoryDevice`,
 * `RunCommand` → `Command`): the word of an RPC-style route says what is done, then to what.
 */
function withoutVerb(word: string): string {
  return RPC_VERB.exec(word)?.[1] ?? word;
}

/** The verbs RPC-style routes begin with, followed by a capital (`settings` keeps its `set`). */
const RPC_VERB =
  /^(?:[Cc]reate|[Uu]pdate|[Dd]elete|[Gg]et|[Ss]et|[Aa]dd|[Rr]emove|[Rr]un|[Rr]ender|[Ss]end|[Ii]mport|[Ee]xport)([A-Z][A-Za-z0-9]*)$/;

/** Last words of routes that name what is done rather than what it is done to. */
const ACTION_WORDS = new Set([
  'acs',
  'activate',
  'archive',
  'cancel',
  'deactivate',
  'execute',
  'export',
  'import',
  'search',
  'start',
  'validate',
  'validation',
]);

function singular(word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('ses')) return word.slice(0, -2);
  return word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

function kebab(word: string): string {
  return word
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();
}
