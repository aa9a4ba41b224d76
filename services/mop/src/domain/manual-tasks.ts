import { templateOutcome } from '@nap/contracts';
import type { JobDocument, ResponseOf, Task } from '@nap/contracts';
import type { ConfigDiff, DiffEngine } from './diff';
import { setOwn } from '@nap/util';

/**
 * What the manual tasks of a workflow show a person: pure functions from the job document and the
 * task's incoming variables (references `$var.job.x` and `$var.<taskId>.<out>` resolved) to a view.
 */

/** The own member `key` of `value` when it is an object or array; undefined otherwise. Job data is read with it, never cast. */
function memberOf(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  const member: unknown = Object.getOwnPropertyDescriptor(value, key)?.value;
  return member;
}

/** Resolves a `$var.job.<name>` or `$var.<taskId>.<outgoing>[.<path>]` reference against the job; other values unchanged. */
export function resolveReference(job: JobDocument, value: unknown): unknown {
  if (typeof value !== 'string' || !value.startsWith('$var.')) return value;
  const [scope, name, ...path] = value.slice(5).split('.');
  if (scope === undefined || name === undefined) return value;
  let current: unknown;
  if (scope === 'job') current = memberOf(job.variables, name);
  else current = memberOf(memberOf(memberOf(memberOf(job.tasks, scope), 'variables'), 'outgoing'), name);
  for (const key of path) current = memberOf(current, key);
  return current;
}

/** The task's incoming variables with references resolved. */
export function incomingOf(job: JobDocument, task: Task): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(task.variables?.incoming ?? {})) setOwn(out, key, resolveReference(job, value));
  return out;
}

/** One commands_results entry of a run result found in a job, as the diff pairs them (job data is not checked). */
interface CommandEntry {
  device: unknown;
  raw: unknown;
  evaluated: unknown;
  response: unknown;
}

function entries(value: unknown): CommandEntry[] {
  const results = memberOf(value, 'commands_results');
  if (!Array.isArray(results)) return [];
  return results.map((e: unknown) => ({
    device: memberOf(e, 'device'),
    raw: memberOf(e, 'raw'),
    evaluated: memberOf(e, 'evaluated'),
    response: memberOf(e, 'response'),
  }));
}

/**
 * viewTemplateResults: per device, whether it passed (under the template's passRule) and which
 * rules failed, as the console and `nap devices check` read a run too.
 */
export function templateResultsView(results: unknown): Record<string, unknown> {
  const outcome = templateOutcome(results);
  return { name: outcome?.name ?? null, result: outcome?.result ?? null, devices: outcome?.devices ?? [] };
}

/**
 * runTemplatesDiff: the diff of each command's output before and after, per device; the diffs run
 * as one batch on `differ` (`deadline`: when the caller stops waiting).
 */
export async function templatesDiffView(
  pre: unknown,
  post: unknown,
  differ: DiffEngine,
  deadline?: number,
): Promise<Record<string, unknown>> {
  const before = entries(pre);
  const after = entries(post);
  const pairs: { device: string; command: string; a: string; b: string }[] = [];
  const used = new Set<CommandEntry>();
  for (const a of before) {
    const b = after.find((x) => !used.has(x) && x.device === a.device && (x.raw === a.raw || x.evaluated === a.evaluated));
    if (b !== undefined) used.add(b);
    pairs.push({
      device: String(a.device ?? ''),
      command: String(a.evaluated ?? a.raw ?? ''),
      a: String(a.response ?? ''),
      b: String(b?.response ?? ''),
    });
  }
  for (const b of after.filter((x) => !used.has(x))) {
    pairs.push({ device: String(b.device ?? ''), command: String(b.evaluated ?? b.raw ?? ''), a: '', b: String(b.response ?? '') });
  }
  const diffs = await differ.diff(
    pairs.map((p) => ({
      a: p.a,
      b: p.b,
      names: { a: 'pre', b: 'post' },
      label: `the outputs of "${p.command}" on device "${p.device}" before and after`,
    })),
    deadline,
  );
  const shown = pairs.map((p, i) => ({ device: p.device, command: p.command, diff: diffs[i] as ConfigDiff }));
  return {
    pre: templateResultsView(pre),
    post: templateResultsView(post),
    diffs: shown,
    changed: shown.filter((p) => p.diff.added + p.diff.removed > 0).length,
  };
}

/** The first two text values of an object, for diffConfig when the names are not the usual ones. */
function twoTexts(incoming: Record<string, unknown>): [string, string] {
  const named = [
    ['value_a', 'value_b'],
    ['original', 'new'],
    ['pre', 'post'],
    ['before', 'after'],
    ['currentConfig', 'newConfig'],
  ] as const;
  for (const [a, b] of named) if (typeof incoming[a] === 'string' && typeof incoming[b] === 'string') return [incoming[a], incoming[b]];
  const texts = Object.values(incoming).filter((v): v is string => typeof v === 'string');
  return [texts[0] ?? '', texts[1] ?? ''];
}

/** diffConfig: the line diff of the two configurations the task received, run on `differ`. */
export async function diffConfigView(
  incoming: Record<string, unknown>,
  differ: DiffEngine,
  deadline?: number,
): Promise<Record<string, unknown>> {
  const [a, b] = twoTexts(incoming);
  const [diff] = await differ.diff([{ a, b, label: 'the two configurations of the task' }], deadline);
  return { ...diff, incoming };
}

/** reviewSummary: the job's summary, task metrics and runtime data. */
export function reviewSummaryView(job: JobDocument): Record<string, unknown> {
  return {
    job: {
      _id: job._id,
      name: job.name,
      status: job.status,
      created: job.created,
      created_by: job.created_by,
      metrics: job.metrics,
      error: job.error ?? [],
    },
    tasks: Object.entries(job.tasks)
      .filter(([id]) => !['workflow_start', 'workflow_end', 'error_handler'].includes(id))
      .map(([id, t]) => ({ id, name: t.name, summary: t.summary, app: t.app, type: t.type, status: t.status, metrics: t.metrics })),
    variables: job.variables ?? {},
  };
}

/** What every manual-task route answers (`GET /mop/task/<name>`). */
export type ManualTaskAnswer = ResponseOf<'mop.chooseDevice'>;

/** The answer of manual task `name`: the task's status, what it shows (`view`), and the route that finishes it. */
export function manualTaskAnswer(
  name: string,
  ids: { jobId: string; taskId: string },
  task: Task,
  view: Record<string, unknown>,
): ManualTaskAnswer {
  const { jobId, taskId } = ids;
  return {
    jobId,
    taskId,
    task: name,
    status: task.status ?? null,
    view,
    finish: {
      method: 'POST',
      path: `/operations-manager/jobs/${encodeURIComponent(jobId)}/tasks/${encodeURIComponent(taskId)}/finish`,
    },
  };
}
