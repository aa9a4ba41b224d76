import { isDeepStrictEqual } from 'node:util';
import { MAX_TASK_RETRIES_KEPT, MAX_TASK_RETRY_ERROR_CHARS, SECRET_MASK, isSecretKey, isSecretValue } from '@nap/contracts';
import type { JobErrorEntry, TaskRetry } from '@nap/contracts';
import { isRecord } from '@nap/util';
import type { JobTask } from './job-model';
import { resolveTaskIncoming } from './references';
import type { ReferenceScope } from './references';

/** Secret values shorter than this are not searched for in a message: a 1–3 character secret would mask ordinary words. */
const MIN_SECRET_CHARS = 4;

/** How deep {@link secretStrings} looks into a variable's value. */
const MAX_DEPTH = 16;

/** What a retry by hand of a task is made of (see {@link retryEntry}). */
export interface RetryFacts {
  /** The task as it ended, before the retry. */
  task: JobTask;
  taskId: string;
  /** The job's error entries before the retry (it clears them). */
  jobErrors: readonly JobErrorEntry[];
  /** The job's variables and tasks before the retry: what the task's references gave it. */
  job?: Pick<ReferenceScope, 'variables' | 'tasks'>;
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
    const secrets = [
      ...secretStrings(previous),
      ...secretStrings(replacements),
      ...secretStrings(task.variables?.resolved),
      // what the task's references ($var.job.creds) gave it, and every secret of the job's variables
      ...secretStrings(ranWith(task, facts.job)),
      ...secretStrings(facts.job?.variables),
    ];
    entry.error = shortened(masked(error, secrets));
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

/** The strings held by members with a secret name (or that are key material), anywhere in `value`. */
function secretStrings(value: unknown, secretName = false, depth = 0): string[] {
  if (typeof value === 'string') return (secretName || isSecretValue(value)) && value.length >= MIN_SECRET_CHARS ? [value] : [];
  if (typeof value === 'number') return secretName && String(value).length >= MIN_SECRET_CHARS ? [String(value)] : [];
  if (depth >= MAX_DEPTH) return [];
  if (Array.isArray(value)) return value.flatMap((item) => secretStrings(item, secretName, depth + 1));
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([name, member]) => secretStrings(member, secretName || isSecretKey(name), depth + 1));
}

/** `message` with every occurrence of the secrets replaced by the mask; the mask alone when it is key material. */
function masked(message: string, secrets: readonly string[]): string {
  if (isSecretValue(message)) return SECRET_MASK;
  // longest first: a secret that contains another is masked whole
  let out = message;
  for (const secret of [...new Set(secrets)].sort((a, b) => b.length - a.length)) out = out.split(secret).join(SECRET_MASK);
  return out;
}

function shortened(message: string): string {
  if (message.length <= MAX_TASK_RETRY_ERROR_CHARS) return message;
  // by code points: a cut never splits a character in two
  return `${Array.from(message)
    .slice(0, MAX_TASK_RETRY_ERROR_CHARS - 1)
    .join('')}…`;
}
