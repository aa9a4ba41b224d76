import { getOperation, hasOperation, pathParams } from '@nap/contracts';
import type { ServiceName, Task } from '@nap/contracts';
import type { CallInput } from '@nap/bus';
import { TaskInputError } from './builtins';
import { isRecord } from '@nap/util';

/**
 * Task apps and the service whose catalog operations run them; `WorkFlowEngine` tasks are built in.
 * The task's `name` is the operation name.
 */
export const APP_SERVICES: Readonly<Record<string, ServiceName>> = Object.freeze({
  MOP: 'mop',
  GatewayDevices: 'gateway-devices',
  AutomationGateway: 'gateway-devices',
  AGManager: 'gateway-devices',
  ConfigurationManager: 'gateway-devices',
  OrchManager: 'orch-proxy',
  AutomationStudio: 'studio',
  TemplateBuilder: 'studio',
  JsonForms: 'studio',
  FormBuilder: 'studio',
  AdminEssentials: 'admin',
});

/**
 * Tasks whose app is no service of the platform call an integration or an adapter: the admin
 * service, which holds their credentials, runs them (`admin.runTask`) and answers the result.
 */
export const OUTSIDE_TASK_OPERATION = 'admin.runTask';

/** Built-in task names that the engine forwards to another service's operation. */
const FORWARDED_BUILTINS: Readonly<Record<string, string>> = Object.freeze({ transformation: 'studio.runTransformation' });

/** The catalog operation that runs a task (`app` → service, `name` → operation), or a {@link TaskInputError} naming what is missing. */
export function operationFor(task: Task): string {
  const app = String(task.app ?? '');
  const name = String(task.name ?? '');
  if (app === 'WorkFlowEngine') {
    const forwarded = FORWARDED_BUILTINS[name];
    if (forwarded) return forwarded;
    throw new TaskInputError(`WorkFlowEngine has no built-in task "${name}"`);
  }
  if (app === '') throw new TaskInputError('The task names no app');
  const service = APP_SERVICES[app];
  if (service === undefined) return OUTSIDE_TASK_OPERATION;
  const id = `${service}.${name}`;
  if (hasOperation(id)) return id;
  if (app === GATEWAY_ROLE_APP) return GATEWAY_ROLE_OPERATION;
  throw new TaskInputError(`App "${app}" (service ${service}) has no operation "${name}"`);
}

/**
 * `AGManager` tasks are named after a service of the device gateway, as the platform being replaced
 * shows each Ansible role of its gateway as a task of that name (`itential_cli`, incoming `_hosts`,
 * `_groups` and the role's variables). One that is no catalog operation runs that role.
 */
const GATEWAY_ROLE_APP = 'AGManager';
const GATEWAY_ROLE_OPERATION = 'gateway-devices.runRole';

/** Inventory names from `_hosts` / `_groups` given as a list or one name ('' for none). */
function targetNames(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is string => typeof v === 'string' && v !== '');
}

/** The input of a catalog call made from a task's resolved incoming variables. */
export function callInputFor(operationId: string, incoming: Record<string, unknown>, task: Task): CallInput {
  if (operationId === OUTSIDE_TASK_OPERATION) {
    const timeoutMs =
      typeof task.timeout === 'number' && task.timeout > 0
        ? Math.min(task.timeout, getOperation(OUTSIDE_TASK_OPERATION).timeoutMs - 5_000)
        : undefined;
    return {
      body: { app: String(task.app), method: String(task.name ?? ''), incoming, ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
    };
  }
  if (operationId === GATEWAY_ROLE_OPERATION && task.app === GATEWAY_ROLE_APP && task.name !== 'runRole') {
    const { _hosts: hosts, _groups: groups, ...args } = incoming;
    return { body: { name: String(task.name), hosts: [...targetNames(hosts), ...targetNames(groups)], args } };
  }
  const op = getOperation(operationId);
  if (operationId === 'studio.runTransformation') {
    // the task's outgoing variables are the JST's outgoing $ids, so the result always comes keyed by them
    const options = isRecord(incoming.options) ? incoming.options : {};
    return {
      params: { transformationId: String(incoming.tr_id ?? '') },
      body: { incoming: isRecord(incoming.variableMap) ? incoming.variableMap : {}, options: { ...options, extractOutput: false } },
    };
  }
  const params: Record<string, string> = {};
  const rest: Record<string, unknown> = { ...incoming };
  for (const p of op.http ? pathParams(op.http.path) : []) {
    if (rest[p] !== undefined) {
      params[p] = String(rest[p]);
      delete rest[p];
    }
  }
  const method = op.http?.method;
  if (method === 'GET' || method === 'DELETE') return { params, query: rest };
  return { params, body: rest };
}

/**
 * When a task whose operation answered `body` finishes: MOP `reattempt` answers at once with
 * `reattemptAt` (epoch ms, on mop's scaled clock), and the task waits until then, as a re-attempt in
 * a workflow does; other tasks finish when they answer (undefined).
 */
export function finishAt(operationId: string, body: unknown): number | undefined {
  if (operationId !== 'mop.reattempt' || !isRecord(body) || typeof body.reattemptAt !== 'number') return undefined;
  return body.reattemptAt;
}

/**
 * Outgoing variables from an operation's answer. A transformation answers its outgoing $ids, which
 * are the task's outgoing names: each takes its member (null when the JST assigned nothing to it).
 */
export function outgoingOf(operationId: string, names: string[], body: unknown): Record<string, unknown> {
  if (operationId !== 'studio.runTransformation') return outgoingFrom(names, body);
  return Object.fromEntries(names.map((n) => [n, isRecord(body) && Object.hasOwn(body, n) ? body[n] : null]));
}

/** Outgoing variables from an operation's answer: members of the answer by name, or the whole answer under the only name. */
export function outgoingFrom(names: string[], body: unknown): Record<string, unknown> {
  const [only, ...others] = names;
  if (only === undefined) return {};
  if (isRecord(body) && names.every((n) => Object.hasOwn(body, n))) return Object.fromEntries(names.map((n) => [n, body[n]]));
  if (others.length === 0) return { [only]: body ?? null };
  return Object.fromEntries(names.map((n) => [n, isRecord(body) && Object.hasOwn(body, n) ? body[n] : null]));
}

/** The `result` of an `admin.runTask` answer (status, headers, body): what the task's outgoing names pick from. */
export function resultOf(answer: unknown): unknown {
  return isRecord(answer) && Object.hasOwn(answer, 'result') ? answer.result : answer;
}

/** The pin of a task in a job's `pinned`: by task id first, then by `app.method`. */
export function pinFor(
  pinned: Record<string, Record<string, unknown>> | undefined,
  id: string,
  task: Task,
): Record<string, unknown> | undefined {
  if (pinned === undefined) return undefined;
  return pinned[id] ?? pinned[`${String(task.app ?? '')}.${String(task.name ?? '')}`];
}
