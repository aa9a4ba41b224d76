import type { WorkflowTask } from '@nap/contracts';
import { task, workflowDocument } from '@nap/testing';
import type { EngineOptions } from '../src';
import type { JobRecord } from '../src/domain/job-model';
import { VALUE_REF, jsonBytes, oversizedValue } from '../src/domain/job-values';
import type { EngineHarness } from './support/harness';
import { startEngineHarness } from './support/harness';

/**
 * A job is one document, and the store refuses a document over 16 MiB (MongoDB does; the embedded
 * store keeps to the same limit, so these tests see what production would): large task outputs and
 * variables live in `job_values`, and a value larger than a job holds fails its task.
 */

const MIB = 1024 * 1024;

/** A long string as a short description (what it repeats, how long), so a failure does not print megabytes. */
function shape(value: unknown): string {
  if (typeof value !== 'string') return `not a string: ${JSON.stringify(value)?.slice(0, 200) ?? String(value)}`;
  const first = value[0] ?? '';
  return value === first.repeat(value.length) ? `${first} × ${value.length}` : `mixed string of ${value.length}`;
}
const harnesses: EngineHarness[] = [];

afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.stop()));
});

async function harness(options: EngineOptions = {}): Promise<EngineHarness> {
  const h = await startEngineHarness(options);
  harnesses.push(h);
  // the service answers the text its call asks for: `size` characters of `fill`
  h.services.set('mop.RunCommandTemplate', async (input) => {
    const body = input.body as { size: number; fill: string };
    return { result: body.fill.repeat(body.size) };
  });
  return h;
}

/** A task whose output `result` is `size` characters, written to the job variable `variable` when given. */
function producing(size: number, fill: string, variable?: string): WorkflowTask {
  return {
    name: 'RunCommandTemplate',
    app: 'MOP',
    type: 'automatic',
    variables: {
      incoming: { size, fill, template: 'show running-config' },
      outgoing: { result: variable === undefined ? null : `$var.job.${variable}` },
    },
  };
}

function chain(name: string, tasks: Record<string, WorkflowTask>) {
  const ids = Object.keys(tasks);
  const edges: [string, string][] = [];
  let previous = 'workflow_start';
  for (const id of ids) {
    edges.push([previous, id]);
    previous = id;
  }
  edges.push([previous, 'workflow_end']);
  return workflowDocument(name, tasks, edges);
}

async function stored(h: EngineHarness, jobId: string): Promise<Record<string, unknown>> {
  const raw = await h.store.collection('jobs').findOne({ _id: jobId });
  if (raw === null) throw new Error(`no job ${jobId}`);
  return raw;
}

describe('large values of a job', () => {
  it('keeps an output over the inline size out of the job document, stores it once, and reads it back with the job', async () => {
    const h = await harness({ inlineValueBytes: 4096 });
    const job = await h.waitFor((await h.run(chain('big-output', { m1: producing(300_000, 'x', 'config'), m2: producing(10, 'y') })))._id, [
      'complete',
      'error',
    ]);
    expect(job.status).toBe('complete');
    // read through the engine: the values themselves
    expect(shape(job.variables.config)).toBe('x × 300000');
    expect(shape(job.tasks.m1?.variables?.outgoing?.result)).toBe('x × 300000');
    expect(job.tasks.m2?.variables?.outgoing?.result).toBe('y'.repeat(10));
    // in the store: references in the job, the value once in job_values (the output and the variable are the same value)
    const raw = (await stored(h, job._id)) as unknown as JobRecord;
    expect(raw.variables.config).toEqual({ [VALUE_REF]: expect.stringMatching(new RegExp(`^${job._id}:[0-9a-f]{64}$`)), bytes: 300_002 });
    expect(raw.tasks.m1?.variables?.outgoing?.result).toEqual(raw.variables.config);
    expect(raw.tasks.m2?.variables?.outgoing?.result).toBe('y'.repeat(10));
    const values = await h.store.collection('job_values').find({ job: job._id });
    expect(values.map((v) => v.bytes)).toEqual([300_002]);
  });

  it('runs a job whose outputs add up to far more than 16 MiB', async () => {
    const h = await harness();
    const tasks = { m1: producing(7 * MIB, 'a'), m2: producing(7 * MIB, 'b'), m3: producing(7 * MIB, 'c', 'last') };
    const job = await h.waitFor((await h.run(chain('outgrows-a-document', tasks)))._id, ['complete', 'error'], 60_000);
    expect(job.error).toEqual([]);
    expect(job.status).toBe('complete');
    expect(shape(job.tasks.m2?.variables?.outgoing?.result)).toBe(`b × ${7 * MIB}`);
    expect(shape(job.variables.last)).toBe(`c × ${7 * MIB}`);
    expect(JSON.stringify(await stored(h, job._id)).length).toBeLessThan(64 * 1024);
  });

  it('moves every value out when values under the inline size make the job too large, and the job goes on', async () => {
    // each 6 MiB output stays inline; the third would make the job document pass 16 MiB
    const h = await harness({ inlineValueBytes: 8 * MIB });
    const tasks = { m1: producing(6 * MIB, 'a'), m2: producing(6 * MIB, 'b'), m3: producing(6 * MIB, 'c') };
    const job = await h.waitFor((await h.run(chain('many-medium-values', tasks)))._id, ['complete', 'error'], 60_000);
    expect(job.error).toEqual([]);
    expect(job.status).toBe('complete');
    expect(shape(job.tasks.m3?.variables?.outgoing?.result)).toBe(`c × ${6 * MIB}`);
    const raw = (await stored(h, job._id)) as unknown as JobRecord;
    expect(raw.tasks.m3?.variables?.outgoing?.result).toEqual({ [VALUE_REF]: expect.any(String), bytes: 6 * MIB + 2 });
  });

  it('fails a task whose output is larger than a job holds with VALUE_TOO_LARGE, and follows its error transition', async () => {
    const h = await harness({ inlineValueBytes: 4096, maxValueBytes: MIB });
    const wf = workflowDocument(
      'too-large',
      { m1: producing(2 * MIB, 'z', 'config'), handled: task('newVariable', { name: 'handled', value: true }) },
      [
        ['workflow_start', 'm1'],
        ['m1', 'workflow_end', 'success'],
        ['m1', 'handled', 'error'],
        ['handled', 'workflow_end'],
      ],
    );
    const job = await h.waitFor((await h.run(wf))._id, ['complete', 'error']);
    expect(job.status).toBe('complete');
    expect(job.variables.handled).toBe(true);
    expect(job.variables).not.toHaveProperty('config');
    expect(job.tasks.m1).toMatchObject({ status: 'error', metrics: { finish_state: 'error' } });
    expect(job.tasks.m1?.variables?.error).toBe(
      `VALUE_TOO_LARGE: the output "result" of task "m1" is ${2 * MIB + 2} bytes of JSON; a job holds values of at most ${MIB} bytes (NAP_JOB_MAX_VALUE_BYTES)`,
    );
    expect(await h.store.collection('job_values').countDocuments({ job: job._id })).toBe(0);
  });

  it('fails a task whose incoming value is larger than a job holds, before it runs', async () => {
    const h = await harness({ inlineValueBytes: 4096, maxValueBytes: 300_000 });
    let calls = 0;
    h.services.set('mop.RunCommandTemplate', async () => {
      calls += 1;
      return { result: 'never' };
    });
    const user: WorkflowTask = {
      name: 'RunCommandTemplate',
      app: 'MOP',
      type: 'automatic',
      variables: { incoming: { template: 'q'.repeat(400_000) }, outgoing: { result: null } },
    };
    const job = await h.waitFor((await h.run(chain('too-large-in', { u1: user })))._id, ['complete', 'error']);
    expect(job.status).toBe('error');
    expect(job.tasks.u1?.variables?.error).toMatch(/^VALUE_TOO_LARGE: the incoming value "template" of task "u1" is 400002 bytes of JSON/);
    expect(calls).toBe(0);
  });

  it('refuses to start a job with a variable larger than a job holds, and keeps one over the inline size out of the document', async () => {
    const h = await harness({ inlineValueBytes: 4096, maxValueBytes: 300_000 });
    await expect(h.run(chain('too-large-start', { m1: producing(1, 'a') }), { huge: 'q'.repeat(400_000) })).rejects.toMatchObject({
      code: 'VALUE_TOO_LARGE',
      status: 413,
    });
    const job = await h.waitFor((await h.run(chain('large-start', { m1: producing(1, 'a') }), { large: 'r'.repeat(200_000) }))._id, [
      'complete',
      'error',
    ]);
    expect(job.status).toBe('complete');
    expect(shape(job.variables.large)).toBe('r × 200000');
    expect(((await stored(h, job._id)) as unknown as JobRecord).variables.large).toEqual({
      [VALUE_REF]: expect.any(String),
      bytes: 200_002,
    });
  });
});

describe('oversizedValue', () => {
  // values are bounded by their shape before any is encoded: the bound must never let a value over the limit through
  it('finds an object, an array or a date-holding value over the limit and measures it exactly, and lets one under it through', () => {
    const limit = 1_000;
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 'v'.repeat(20)]));
    expect(oversizedValue({ small: { a: [1, 'two', null, true] }, many }, limit)).toEqual({ name: 'many', bytes: jsonBytes(many) });
    const list = Array.from({ length: 300 }, (_, i) => i * 1000);
    expect(oversizedValue({ list }, limit)).toEqual({ name: 'list', bytes: jsonBytes(list) });
    // escapes take six bytes of JSON for one character; multi-byte characters three
    const escaped = { text: '\u0001'.repeat(200) };
    expect(oversizedValue({ escaped }, limit)).toEqual({ name: 'escaped', bytes: 1_211 });
    const wide = { text: 'é'.repeat(600) };
    expect(oversizedValue({ wide }, limit)).toEqual({ name: 'wide', bytes: jsonBytes(wide) });
    const dated = { at: new Date(0), notes: 'n'.repeat(990) };
    expect(oversizedValue({ dated }, limit)).toEqual({ name: 'dated', bytes: jsonBytes(dated) });
    expect(oversizedValue({ fits: { a: 'x'.repeat(100), b: [1, 2, 3] }, dated: { at: new Date(0) } }, limit)).toBeUndefined();
  });
});
