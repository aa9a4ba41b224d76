import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { nap } from './nap';
import type { TaskPage } from './nap';
import { isRecord } from './records';

/** A task of the work queue as the platform lists it (the whole task: its variables too). */
export type WaitingTask = TaskPage['data'][number];

/**
 * The work queue: manual tasks (type manual, or the engine's ViewData and ViewDiff) running in
 * jobs that are running or paused. The platform applies the caller's visibility.
 */
const WAITING = JSON.stringify({
  and: [
    { equals: { status: 'running' } },
    { in: { 'job.status': 'running,paused' } },
    { or: [{ equals: { type: 'manual' } }, { in: { name: 'ViewData,ViewDiff' } }] },
  ],
});

/** Every manual task waiting for a person that the caller may see; task events refresh it. */
export function useWorkQueue() {
  return useQuery({ queryKey: ['tasks', 'waiting'], queryFn: () => nap.tasks({ q: WAITING, limit: 500 }) });
}

/**
 * How many manual tasks wait for a person (the header's count beside Tasks): the platform's total,
 * one task asked for; task events refresh it with the queue.
 */
export function useWaitingCount(enabled: boolean): number | undefined {
  const count = useQuery({
    queryKey: ['tasks', 'waiting', 'count'],
    queryFn: () => nap.tasks({ q: WAITING, limit: 1 }),
    enabled,
    select: (page) => page.metadata.total,
  });
  return count.data;
}

/** What a waiting task shows the person, as far as its own variables say: told apart from another task of the same name by these. */
export interface TaskTexts {
  /** The task's header (a ViewData task's title, e.g. "Change CHG-1042 on core-1"). */
  header?: string;
  /** The task's message to the person. */
  message?: string;
  /** The first line of the text it shows (a ViewData body that is text: the planned configuration). */
  excerpt?: string;
}

/** At most this much of a body's first line is shown in the queue (the job page shows all of it). */
const EXCERPT_LENGTH = 120;

/** A text the person reads: not empty, and not a reference the engine has not resolved (`$var.job.plan`). */
function shownText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return text === '' || /^\$var\./.test(text) ? undefined : text;
}

/**
 * The header, message and first line of text a waiting task shows, from the variables the work
 * queue's answer carries (resolved, as the job page shows them, else as the workflow wrote them):
 * what tells apart several tasks of one name ("Approve change") in jobs of one workflow, without
 * reading each job.
 */
export function taskTexts(task: WaitingTask): TaskTexts {
  const variables = task.variables;
  if (!isRecord(variables)) return {};
  const shown = isRecord(variables.resolved) ? variables.resolved : isRecord(variables.incoming) ? variables.incoming : {};
  const header = shownText(shown.header);
  const message = shownText(shown.message);
  const firstLine = shownText(shown.body)
    ?.split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '');
  const excerpt = firstLine && firstLine.length > EXCERPT_LENGTH ? `${firstLine.slice(0, EXCERPT_LENGTH - 1)}…` : firstLine;
  return { ...(header ? { header } : {}), ...(message ? { message } : {}), ...(excerpt ? { excerpt } : {}) };
}

/** Jobs named in one request of the job list (their ids in the address: about 2.5 kB of it). */
const IDS_PER_REQUEST = 100;

/**
 * The descriptions of the jobs the queue's tasks wait in (`job id → description`, '' for none),
 * read for all of them at once from the job list (`in[_id]`, `include=_id,description`: one request
 * per hundred jobs, never one per row). A job's description does not change, so a queue whose jobs
 * are the same asks nothing again; while a changed queue's are read, the ones known stay shown.
 */
export function useJobDescriptions(jobIds: readonly string[]): ReadonlyMap<string, string> {
  const ids = [...new Set(jobIds.filter((id) => id !== ''))].sort();
  const descriptions = useQuery({
    queryKey: ['job-descriptions', ids],
    queryFn: async ({ signal }) => {
      const batches: string[][] = [];
      for (let i = 0; i < ids.length; i += IDS_PER_REQUEST) batches.push(ids.slice(i, i + IDS_PER_REQUEST));
      const pages = await Promise.all(
        batches.map((batch) => nap.jobs({ in: { _id: batch.join(',') }, include: '_id,description', limit: batch.length }, signal)),
      );
      return new Map(
        pages
          .flatMap((page) => page.items)
          .map((job) => [String(job._id), typeof job.description === 'string' ? job.description.trim() : ''] as const),
      );
    },
    enabled: ids.length > 0,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });
  return descriptions.data ?? NO_DESCRIPTIONS;
}

const NO_DESCRIPTIONS: ReadonlyMap<string, string> = new Map();
