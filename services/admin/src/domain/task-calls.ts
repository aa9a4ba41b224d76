import { AppError } from '@nap/contracts';

/** A workflow task to run through an integration or an adapter. */
export interface TaskCall {
  app: string;
  method: string;
  incoming: Record<string, unknown>;
  timeoutMs?: number | undefined;
}

/** Where a task runs: an integration or an adapter of that name. */
export interface TaskTarget {
  kind: 'integration' | 'adapter';
  name: string;
}

/**
 * Where a task whose app is an integration or an adapter runs: the one instance that answers to
 * the app (integrations and adapters found by the caller), narrowed by the task's `adapter_id`
 * when several do; 404 `TASK_APP_UNKNOWN` when none or several remain.
 */
export function taskTarget(task: Pick<TaskCall, 'app' | 'incoming'>, integrations: string[], adapters: string[]): TaskTarget {
  const instance = typeof task.incoming.adapter_id === 'string' && task.incoming.adapter_id !== '' ? task.incoming.adapter_id : undefined;
  let candidates: TaskTarget[] = [
    ...integrations.map((name) => ({ kind: 'integration' as const, name })),
    ...adapters.map((name) => ({ kind: 'adapter' as const, name })),
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
  return only;
}
