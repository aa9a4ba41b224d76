import type { WorkflowTask } from '@nap/contracts';
import { workflowDocument } from '@nap/testing';
import type { PublishedEvent } from './harness';

/** A task that calls another service (mop.RunCommandTemplate), which the tests count and can hold. */
export function remote(step: number): WorkflowTask {
  return {
    name: 'RunCommandTemplate',
    app: 'MOP',
    type: 'automatic',
    variables: { incoming: { template: '$var.job.tag', step }, outgoing: { result: null } },
  };
}

export const twoRemote = workflowDocument('crash-remote', { m1: remote(1), m2: remote(2) }, [
  ['workflow_start', 'm1'],
  ['m1', 'm2'],
  ['m2', 'workflow_end'],
]);

/** Executions of the remote task by `<tag>/<step>`, answered at once. */
export function counter() {
  const runs = new Map<string, number>();
  const handler = (input: { body?: unknown }): Promise<{ result: string }> => {
    const body = input.body as { template: string; step: number };
    const key = `${body.template}/${body.step}`;
    runs.set(key, (runs.get(key) ?? 0) + 1);
    return Promise.resolve({ result: key });
  };
  return { runs, handler };
}

/** The event names of a job with their seq, as a consumer that drops a seq it has seen keeps them. */
export function streamOf(events: PublishedEvent[], jobId: string): { names: string[]; seqs: number[]; duplicates: number } {
  const names: string[] = [];
  const seqs: number[] = [];
  let last = 0;
  let duplicates = 0;
  for (const { subject, payload } of events) {
    if (payload.jobId !== jobId) continue;
    const seq = payload.seq as number;
    if (seq <= last) {
      duplicates += 1;
      continue;
    }
    last = seq;
    seqs.push(seq);
    names.push(`${subject.split('.').pop() as string}${payload.taskId ? `:${String(payload.taskId)}` : ''}`);
  }
  return { names, seqs, duplicates };
}

export const COMPLETE_STREAM = ['jobStart', 'taskStart:m1', 'taskFinish:m1', 'taskStart:m2', 'taskFinish:m2', 'jobComplete'];
