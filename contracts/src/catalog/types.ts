import type { Role } from '../roles';
import type { ServiceName } from '../services';

/** A JSON Schema (draft 2020-12 subset that Ajv compiles). */
export type JsonSchema = { [keyword: string]: unknown };

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How the gateway authenticates an operation:
 * - `token`: credentials required and one of `roles` (the default);
 * - `caller`: credentials required, and nothing more: what acts on the caller's own session and
 *   account (`/whoami`, `/logout`), which a person whose groups give no role yet may call too;
 * - `public`: no credentials (probes, login, docs).
 */
export type AuthMode = 'token' | 'caller' | 'public';

/** One operation of the platform, reachable on the bus and, when `http` is set, over HTTP. */
export interface OperationDef {
  /** `<service>.<operation>`, for example `workflow.startJobWithOptions`. The bus subject derives from it. */
  id: string;
  service: ServiceName;
  /** Operation name as the spec writes it (`startJobWithOptions`, `RunCommandTemplate`). */
  name: string;
  summary: string;
  /** Express-style path with `:params`; absent for bus-only operations. */
  http?: { method: HttpMethod; path: string };
  /** Roles allowed to call it; exact where the spec's Authentication table lists the route. */
  roles: readonly Role[];
  auth?: AuthMode;
  /**
   * JSON Schemas of the request parts. `query` describes the flat query string the gateway receives
   * (bracketed members such as `equals[status]` arrive as nested objects) after type coercion.
   */
  request: { params?: JsonSchema; query?: JsonSchema; body?: JsonSchema };
  /** Status and JSON Schema of the success body. */
  response: { status: number; body?: JsonSchema; contentType?: string };
  /** Bus request timeout; the gateway answers 504 when the service is later than this. */
  timeoutMs: number;
  /** True for routes this platform adds to the spec (login helpers, job envelope, SSE, …). */
  addition?: boolean;
  /** Content types accepted for the body; defaults to `application/json`. */
  accepts?: readonly string[];
  /** Which body limit the gateway applies ({@link BODY_LIMITS}); `default` unless given. */
  bodyLimit?: BodyLimit;
  /** Free text for OpenAPI; where the spec leaves something open, what was decided. */
  notes?: string;
  /**
   * The kind of target its audit records name, where the route does not say it plainly: a route
   * named after its action (`/mop/createTemplate`: a command template) or a parameter named after
   * something else (`/mop/updateTemplate/:mopID`). The gateway derives it from the route otherwise.
   */
  auditKind?: string;
  /**
   * The body member naming what a request acts on when neither its route nor a body `name` does
   * (`host` of `/gw/sshSendCommandExec`: the device a command goes to): the audit trail records it as
   * the target's name, so that what was done to a device is found by its name.
   */
  auditName?: string;
  /**
   * The body member listing the inventory devices a request runs on (`devices` of
   * `/mop/RunCommandTemplate`): besides the request's own record (the template it runs), the audit
   * trail records it once per device (`{kind: device, name}`), so that what was run on a device is
   * found by the device's name, as a command sent to one device is.
   */
  auditDevices?: string;
  /**
   * The body member listing the ids of the things a request acts on, when it acts on several
   * (`jobIds`): the audit trail records the request once per id, each naming its target, so that
   * what happened to one of them is found by its id.
   */
  auditEach?: string;
  /**
   * The operation only reads: sending it twice changes nothing, so the bus client may send it again
   * when no reply comes (a hedged request, see `@nap/bus`). True of every `GET`; set for the spec's
   * reads that are `POST` (`/gw/getInventoryDevice`). Not set for reads that reach a device.
   */
  safe?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The largest request bodies the gateway reads (413 `PAYLOAD_TOO_LARGE` beyond), by kind of
 * operation, in bytes: `default` for every operation, `document` for those that take whole
 * documents users have (OpenAPI documents: GitLab's is 2.4 MB); 8 MiB, the largest max_payload NATS
 * advises, so that the body also crosses the bus in distributed mode once the NATS server allows it.
 * Each is configurable at start by its environment variable, from 1 KiB up to {@link MAX_BODY_LIMIT_BYTES}.
 */
export const BODY_LIMITS = {
  default: { bytes: 1_048_576, env: 'NAP_BODY_LIMIT_BYTES' },
  document: { bytes: 8_388_608, env: 'NAP_DOCUMENT_BODY_LIMIT_BYTES' },
} as const;

/** A kind of body limit: a key of {@link BODY_LIMITS}. */
export type BodyLimit = keyof typeof BODY_LIMITS;

/** No body limit may be set above this, in bytes (64 MiB): a request body is read into memory whole. */
export const MAX_BODY_LIMIT_BYTES = 67_108_864;
