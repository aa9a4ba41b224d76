import { parentPort } from 'node:worker_threads';
import type { WorkerPoolRequest } from '@nap/runtime';
import { diffBatch } from '../domain/diff';
import type { DiffPoolAnswer, DiffPoolJob } from './diff-pool';

// The thread of the diff pool (engine/diff-pool.ts, over @nap/runtime's worker pool): runs one batch
// of line diffs at a time, each batch within its time limit, and answers it. Its only side effect is
// listening to the pool. It imports only types of @nap/runtime: the thread starts without loading it.
const port = parentPort;
if (port === null) throw new Error('The diff worker runs as a worker thread of the mop service (engine/diff-pool.ts)');

port.on('message', ({ id, job }: WorkerPoolRequest<DiffPoolJob>) => {
  let answer: DiffPoolAnswer;
  try {
    answer = { id, ok: true, value: diffBatch(job.inputs, job.timeoutMs) };
  } catch (err) {
    answer = { id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer);
});
port.postMessage({ ready: true } satisfies DiffPoolAnswer);
