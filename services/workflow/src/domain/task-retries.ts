import { isDeepStrictEqual } from 'node:util';
import { MAX_TASK_RETRIES_KEPT, MAX_TASK_RETRY_ERROR_CHARS, findDeclaredSecrets, findSecrets, noSecrets, secretMask } from '@nap/contracts';
import type { JobErrorEntry, TaskRetry } from '@nap/contracts';
import { isRecord } from '@nap/util';
import type { JobTask } from './job-model';
import { resolveTaskIncoming } from './references';
import type { ReferenceScope } from './references';

/** What a retry by hand of a task is made of (see {@link retryEntry}). */
export interface RetryFacts {
  /** The task as it ended, before the retry. */
  task: JobTask;
  taskId: string;
  /** The job's error entries before the retry (it clears them). */
  jobErrors: readonly JobErrorEntry[];
  /** The job's variables and tasks before the retry: what the task's references gave it. */
  job?: Pick<ReferenceScope, 'variables' | 'tasks'> & { secretInputs?: string[][] };
  /** The replacement incoming values the retry gives, by name. */
  replacements: Record<string, unknown>;
  /** Username of who retried. */
  by: string;
  /** Epoch ms. */
  at: number;
}

/**
 * The record a retry by hand leaves on its task: who and when, how the task had ended (its finish
 * state, and its error or else the job's error entry for it, shortened and with the secret values of
 * its variables masked, those its references gave it and the job's own among them), and the names
 * of the incoming variables given another value. It keeps no value: the task's incoming holds the
 * new ones.
 */
export function retryEntry(facts: RetryFacts): TaskRetry {
  const { task, taskId, replacements, by, at } = facts;
  const previous = task.variables?.incoming ?? {};
  const variables = Object.keys(replacements).filter(
    (name) => !Object.hasOwn(previous, name) || !isDeepStrictEqual(previous[name], replacements[name]),
  );
  const retries = task.retries ?? [];
  const entry: TaskRetry = { number: (retries.at(-1)?.number ?? retries.length) + 1, by, at, variables };
  const finishState = task.metrics?.finish_state;
  if (typeof finishState === 'string' && finishState !== '') entry.finish_state = finishState;
  const error = errorOf(task, taskId, facts.jobErrors);
  if (error !== undefined) {
    const secrets = noSecrets();
    for (const value of [previous, replacements, task.variables?.resolved, ranWith(task, facts.job), facts.job?.variables])
      findSecrets(value, secrets);
    if (facts.job?.secretInputs !== undefined) findDeclaredSecrets(facts.job.variables, facts.job.secretInputs, secrets);
    // masked as the error was when recorded (an error recorded before that was, too), then shortened
    entry.error = shortened(secretMask(secrets).text(error));
  }
  return entry;
}

/** `retries` with `entry` added at the end, the oldest dropped past {@link MAX_TASK_RETRIES_KEPT}. */
export function withRetry(retries: readonly TaskRetry[] | undefined, entry: TaskRetry): TaskRetry[] {
  return [...(retries ?? []), entry].slice(-MAX_TASK_RETRIES_KEPT);
}

/** Why the task had failed: its own error text, else the last error entry the job has for it. */
function errorOf(task: JobTask, taskId: string, jobErrors: readonly JobErrorEntry[]): string | undefined {
  const own: unknown = task.variables?.error;
  // before a task fails its error member may name where the error goes (`$var.job.x`), not an error
  if (typeof own === 'string' && own.trim() !== '' && !own.startsWith('$var.')) return own.trim();
  if (isRecord(own) || Array.isArray(own)) return JSON.stringify(own);
  const entry = jobErrors.filter((e) => e.task === taskId).at(-1);
  return entry === undefined || entry.message.trim() === '' ? undefined : entry.message.trim();
}

/** The incoming values the task ran with: its references resolved against the job (nothing when one cannot be). */
function ranWith(task: JobTask, job: RetryFacts['job']): unknown {
  if (job === undefined) return undefined;
  try {
    return resolveTaskIncoming(task, { variables: job.variables, tasks: job.tasks });
  } catch {
    return undefined;
  }
}

function shortened(message: string): string {
  if (message.length <= MAX_TASK_RETRY_ERROR_CHARS) return message;
  // by code points: a cut never splits a character in two
  return `${Array.from(message)
    .slice(0, MAX_TASK_RETRY_ERROR_CHARS - 1)
    .join('')}…`;
}
