import { AppError } from '@nap/contracts';
import type { OutboundResponse } from '@nap/contracts';
import type { AdapterDomain } from './adapters';
import type { IntegrationDomain } from './integrations';

/** A workflow task to run through an integration or an adapter. */
export interface TaskCall {
  app: string;
  method: string;
  incoming: Record<string, unknown>;
  timeoutMs?: number | undefined;
}

/**
 * Runs a task whose app is an integration or an adapter: finds what answers to the app (an
 * integration by name, model title or versionId; an adapter by name or model), narrowed by the
 * task's `adapter_id` when several do, and calls the method there.
 */
export async function runTaskCall(integrations: IntegrationDomain, adapters: AdapterDomain, task: TaskCall): Promise<OutboundResponse> {
  const instance = typeof task.incoming.adapter_id === 'string' && task.incoming.adapter_id !== '' ? task.incoming.adapter_id : undefined;
  const [ints, ads] = await Promise.all([integrations.integrationsFor(task.app), adapters.adaptersFor(task.app)]);
  let candidates = [
    ...ints.map((i) => ({ kind: 'integration' as const, name: i.name })),
    ...ads.map((name) => ({ kind: 'adapter' as const, name })),
  ];
  if (candidates.length === 0)
    throw new AppError(
      'TASK_APP_UNKNOWN',
      `No integration or adapter answers to app "${task.app}"; create one (POST /integrations or /adapters)`,
    );
  if (instance !== undefined && candidates.length > 1) {
    const named = candidates.filter((c) => c.name === instance);
    if (named.length === 0)
      throw new AppError(
        'TASK_APP_UNKNOWN',
        `adapter_id "${instance}" names none of the instances of app "${task.app}": ${candidates.map((c) => c.name).join(', ')}`,
      );
    candidates = named;
  }
  const [only, ...others] = candidates;
  if (only === undefined || others.length > 0) {
    throw new AppError(
      'TASK_APP_UNKNOWN',
      `Several instances answer to app "${task.app}" (${candidates.map((c) => c.name).join(', ')}); set the task's adapter_id to one of them`,
    );
  }
  return only.kind === 'integration'
    ? integrations.callMethod(only.name, task.method, task.incoming, task.timeoutMs)
    : adapters.runTask(only.name, task.method, task.incoming, task.timeoutMs);
}
