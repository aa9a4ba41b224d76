import { isRecord } from '@nap/util';
import type { BusHeaders, EndpointDef, IncomingRequest, ServiceInfo, ServiceRegistration, ServiceStats } from '../types';
import { PAUSED_METADATA_KEY, REGISTRATION_METADATA_KEY } from '../types';
import type { BusLogger } from './logger';
import { isPromiseLike } from './signal';
import { isValidPattern } from '../subject-match';
import { invalidArgument } from './errors';
import { toHeaderValue } from './headers';

/** Header carrying the error status of a services-framework error reply. */
export const SERVICE_ERROR_CODE_HEADER = 'Nats-Service-Error-Code';
/** Header carrying the error message of a services-framework error reply. */
export const SERVICE_ERROR_HEADER = 'Nats-Service-Error';

/** How long `discover()`/`stats()` gather replies by default. */
export const DEFAULT_DISCOVER_TIMEOUT_MS = 500;

const NAME = /^[-\w]+$/;
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** Service, endpoint and queue names: what the services framework accepts (`[-A-Za-z0-9_]+`). */
export function assertName(kind: string, name: string): void {
  if (!NAME.test(name)) throw invalidArgument(`${kind} name "${name}" is not valid: use letters, digits, '-' and '_'`);
}

/** Refuses a registration the services framework would refuse, with the same `AppError` on both buses. */
export function assertValidRegistration(registration: ServiceRegistration): void {
  assertName('Service', registration.name);
  if (!SEMVER.test(registration.version)) {
    throw invalidArgument(`Service "${registration.name}" version "${registration.version}" is not a semantic version (like 1.2.3)`);
  }
  assertName('Queue group', registration.queue ?? registration.name);
  const seen = new Set<string>();
  for (const endpoint of registration.endpoints) {
    assertName('Endpoint', endpoint.name);
    if (seen.has(endpoint.name)) throw invalidArgument(`Service "${registration.name}" declares endpoint "${endpoint.name}" twice`);
    seen.add(endpoint.name);
    if (!isValidPattern(endpoint.subject)) throw invalidArgument(`Endpoint "${endpoint.name}" subject "${endpoint.subject}" is not valid`);
  }
}

/** Headers of a services-framework error reply: the caller's extra headers plus code and message. */
export function errorReplyHeaders(status: number, message: string, extra: BusHeaders | undefined): BusHeaders {
  return { ...extra, [SERVICE_ERROR_CODE_HEADER]: String(status), [SERVICE_ERROR_HEADER]: toHeaderValue(message) };
}

/** JSON body of the error reply sent when an endpoint handler throws instead of answering. */
export function handlerFailureBody(endpoint: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ code: 'INTERNAL', message: `The handler of endpoint "${endpoint}" failed` }));
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Reads a `$SRV.INFO` reply (or the memory bus's record) into exactly the `ServiceInfo` shape. */
/** The metadata of one registration: the service's own, its state while paused, and its number. */
export function registrationMetadata(registration: ServiceRegistration, paused: boolean, generation: number): Record<string, string> {
  return {
    ...registration.metadata,
    ...(paused ? { [PAUSED_METADATA_KEY]: 'true' } : {}),
    [REGISTRATION_METADATA_KEY]: String(generation),
  };
}

export function toServiceInfo(raw: unknown): ServiceInfo {
  const r = isRecord(raw) ? raw : {};
  const info: ServiceInfo = {
    name: str(r.name),
    id: str(r.id),
    version: str(r.version),
    metadata: stringRecord(r.metadata),
    endpoints: (Array.isArray(r.endpoints) ? r.endpoints : []).filter(isRecord).map((e) => {
      const endpoint: ServiceInfo['endpoints'][number] = { name: str(e.name), subject: str(e.subject) };
      if (typeof e.queue_group === 'string' && e.queue_group !== '') endpoint.queue_group = e.queue_group;
      return endpoint;
    }),
  };
  if (typeof r.description === 'string' && r.description !== '') info.description = r.description;
  return info;
}

/** Reads a `$SRV.STATS` reply (or the memory bus's record) into exactly the `ServiceStats` shape. */
export function toServiceStats(raw: unknown): ServiceStats {
  const r = isRecord(raw) ? raw : {};
  return {
    name: str(r.name),
    id: str(r.id),
    version: str(r.version),
    started: str(r.started),
    endpoints: (Array.isArray(r.endpoints) ? r.endpoints : []).filter(isRecord).map((e) => {
      const endpoint: ServiceStats['endpoints'][number] = {
        name: str(e.name),
        subject: str(e.subject),
        num_requests: num(e.num_requests),
        num_errors: num(e.num_errors),
        processing_time: num(e.processing_time),
        average_processing_time: num(e.average_processing_time),
      };
      if (typeof e.last_error === 'string' && e.last_error !== '') endpoint.last_error = e.last_error;
      return endpoint;
    }),
  };
}

/** Stable order for discovery results: by service name, then instance id. */
export function byNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  return a.name === b.name ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.name < b.name ? -1 : 1;
}

/**
 * Runs an endpoint handler on a request; a handler that throws (or whose promise rejects) is
 * logged and answered with a 500 error reply, so no request is left without an answer.
 */
export function invokeEndpoint(endpoint: EndpointDef, request: IncomingRequest, logger: BusLogger): void {
  const fail = (err: unknown): void => {
    logger.error({ err, endpoint: endpoint.name, subject: request.subject }, 'endpoint handler threw');
    request.respondError(500, `The handler of endpoint "${endpoint.name}" failed`, handlerFailureBody(endpoint.name));
  };
  try {
    const result: unknown = endpoint.handler(request);
    if (isPromiseLike(result)) result.then(undefined, fail);
  } catch (err) {
    fail(err);
  }
}
