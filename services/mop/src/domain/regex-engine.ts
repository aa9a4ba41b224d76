import { errorMessage } from '@nap/util';

/**
 * How rules run user-written regular expressions. The rule logic only plans jobs and reads their
 * outcomes; an engine runs them. The service uses a worker pool with a time limit per job
 * (a pattern that backtracks for ever cannot stall it); pure tests and the benchmark use the
 * inline engine.
 */

/** `test`: whether it matches; `capture`: group 1 of the first match (the whole match without a group), or null; `all`: every match. */
export type RegexMode = 'test' | 'capture' | 'all';

export interface RegexJob {
  pattern: string;
  /** JavaScript flags (`i`, `m`, `s`, `u`). */
  flags: string;
  /** Index of the input text in the batch. */
  input: number;
  mode: RegexMode;
}

export type RegexValue = boolean | string | null | string[];

export type RegexOutcome = { ok: true; value: RegexValue } | { ok: false; error: string; timedOut?: boolean };

/**
 * Runs batches of jobs over shared input texts; one outcome per job, in order. Never rejects for a bad
 * pattern. `deadline` (epoch ms): when the caller stops waiting; jobs not started by then are not run
 * (each answers a failure saying so), so that a run nobody waits for does not go on holding workers.
 */
export interface RegexEngine {
  run(inputs: readonly string[], jobs: readonly RegexJob[], deadline?: number): Promise<RegexOutcome[]>;
}

/**
 * Runs one job. Self-contained on purpose: the worker pool ships its source text to the workers,
 * so it may use nothing from outside its own body.
 */
export function execRegexJob(pattern: string, flags: string, input: string, mode: string): boolean | string | null | string[] {
  const re = new RegExp(pattern, flags.replace(/[gy]/g, ''));
  if (mode === 'test') return re.test(input);
  if (mode === 'capture') {
    const m = re.exec(input);
    if (m === null) return null;
    return m.length > 1 && typeof m[1] === 'string' ? m[1] : m[0];
  }
  const all = new RegExp(re.source, `${re.flags}g`);
  const found: string[] = [];
  let m: RegExpExecArray | null;
  while ((m = all.exec(input)) !== null && found.length < 100_000) {
    found.push(m[0]);
    if (m[0] === '') all.lastIndex += 1;
  }
  return found;
}

/** Runs jobs in this thread, without a time limit: for pure tests and benchmarks of the rule logic. */
export function createInlineRegexEngine(): RegexEngine {
  return {
    run(inputs, jobs) {
      return Promise.resolve(
        jobs.map((job): RegexOutcome => {
          try {
            return { ok: true, value: execRegexJob(job.pattern, job.flags, inputs[job.input] ?? '', job.mode) };
          } catch (err) {
            return { ok: false, error: errorMessage(err) };
          }
        }),
      );
    },
  };
}
