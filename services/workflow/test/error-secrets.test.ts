import { createHash } from 'node:crypto';
import { AppError, SECRET_MASK } from '@nap/contracts';
import type { WorkflowTask } from '@nap/contracts';
import { eventually, task, workflowDocument } from '@nap/testing';
import type { JobRecord } from '../src/domain/job-model';
import { parentOf } from './support/child-job';
import type { EngineHarness } from './support/harness';
import { startEngineHarness } from './support/harness';

/**
 * A failed task's error holds, in clear, nothing its references resolved to: the error a built-in
 * throws, the error an app answers over the bus (echoing the request: the credentials JSON-escaped,
 * URL-encoded, as HTTP Basic auth), the error of a child job as its parent records it, the error
 * an automatic retry shows meanwhile, and the job's error entry for a task that ends the job. Each is
 * masked where it is recorded, so the stored document, the job's events and its answers never hold
 * the secret, and the error still says what went wrong.
 */

const USER = 'ops-admin';
/** A quote and a backslash change its JSON form; `/`, `@`, a space and `+` its URL-encoded one. */
const SECRET = 'Hunt"er2/p@ss w+rd\\9';
const CREDS = { username: USER, password: SECRET };

/** The forms of the secret a text could hold it in, by name. */
const FORMS: Record<string, string> = {
  plain: SECRET,
  json: JSON.stringify(SECRET).slice(1, -1),
  uri: encodeURIComponent(SECRET),
  base64: Buffer.from(SECRET).toString('base64'),
  basic: Buffer.from(`${USER}:${SECRET}`).toString('base64'),
};

/** The names of the forms of the secret that `value` (a text, or anything as JSON) holds: none, when it leaks nothing. */
function leaks(value: unknown): string[] {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return Object.entries(FORMS)
    .filter(([, form]) => text.includes(form))
    .map(([name]) => name);
}

/** A task's error: what the store holds (`variables.error`) as text. */
function errorOf(job: JobRecord, id: string): string {
  return String(job.tasks[id]?.variables?.error);
}

/** The job as stored, read from the store itself, whole (its inputs hold the credentials, sealed), with its large values. */
async function stored(jobId: string): Promise<Record<string, unknown>> {
  const raw = await h.store.collection<JobRecord>('jobs').findOne({ _id: jobId });
  if (raw === null) throw new Error(`job ${jobId} is not stored`);
  return { ...(raw as unknown as Record<string, unknown>), values: await h.store.collection('job_values').find({ job: jobId }) };
}

/** Every event the job published on the bus. */
function eventsOf(jobId: string): Record<string, unknown>[] {
  return h.events.filter((e) => e.payload.jobId === jobId).map((e) => ({ subject: e.subject, ...e.payload }));
}

/** The events of the job once the one that ends it (`jobComplete`, `jobError`) is published. */
function publishedUntil(jobId: string, last: 'jobComplete' | 'jobError'): Promise<Record<string, unknown>[]> {
  return eventually(
    `${last} of job ${jobId} published`,
    () => {
      const events = eventsOf(jobId);
      return events.some((e) => String(e.subject).endsWith(`.${last}`)) && events;
    },
    { timeoutMs: 10_000 },
  );
}

let h: EngineHarness;

beforeAll(async () => {
  h = await startEngineHarness();
});

afterAll(async () => {
  await h.stop();
});

const ENDED = ['complete', 'error', 'canceled'];

describe('a built-in task that fails', () => {
  it('masks the secrets of its references in its error, the job variable it writes the error to and the stored job', async () => {
    const template = (input: string, error = ''): Partial<WorkflowTask> & { name: string } => {
      const t = task('makeData', { input, variables: '$var.job.creds', outputType: 'json' }, { output: null });
      return { ...t, variables: { ...t.variables, error } };
    };
    const wf = workflowDocument(
      'secret-builtin',
      {
        // not JSON once filled: the error quotes the text, the password in it
        a1: template('login <!username!> with <!password!> refused', '$var.job.why'),
        // the error cuts the text at 80 characters, inside the password
        a2: template(`${'x'.repeat(70)} <!password!> and more`),
      },
      [
        ['workflow_start', 'a1'],
        ['a1', 'a2', 'error'],
        ['a2', 'workflow_end', 'error'],
      ],
    );
    const job = await h.waitFor((await h.run(wf, { creds: CREDS }))._id, ENDED);
    expect(job.status).toBe('complete');
    expect(errorOf(job, 'a1')).toBe(`makeData output is not valid JSON: login ${USER} with ${SECRET_MASK} refused`);
    expect(job.variables.why).toBe(errorOf(job, 'a1'));
    expect(errorOf(job, 'a2')).toBe(`makeData output is not valid JSON: ${'x'.repeat(70)} ${SECRET_MASK}`);
    expect(errorOf(job, 'a2')).not.toContain(SECRET.slice(0, 4));
    expect(leaks(await stored(job._id))).toEqual([]);
    expect(leaks(eventsOf(job._id))).toEqual([]);
  });

  it('masks a secret the workflow inputSchema declares (format password) though its name is not a secret name', async () => {
    const key = 'declared-k3y/not+named';
    const wf = workflowDocument(
      'secret-declared',
      {
        a1: {
          ...task('makeData', { input: 'use <!accessCode!> now', variables: '$var.job.access', outputType: 'json' }, { output: null }),
        },
      },
      [
        ['workflow_start', 'a1'],
        ['a1', 'workflow_end', 'error'],
      ],
    );
    const declared = {
      ...wf,
      inputSchema: {
        type: 'object',
        properties: { access: { type: 'object', properties: { accessCode: { type: 'string', format: 'password' } } } },
      },
    };
    const job = await h.waitFor((await h.run(declared, { access: { accessCode: key } }))._id, ENDED);
    expect(job.status).toBe('complete');
    expect(errorOf(job, 'a1')).toBe(`makeData output is not valid JSON: use ${SECRET_MASK} now`);
    const text = JSON.stringify([await stored(job._id), eventsOf(job._id)]);
    expect(text).not.toContain(key);
    expect(text).not.toContain(encodeURIComponent(key));
  });

  it('masks a secret the error quotes inside an object (JSON-escaped), naming the member it held', async () => {
    const wf = workflowDocument(
      'secret-concat',
      { a1: task('stringConcat', { str: 'x', stringN: '$var.job.creds' }, { combinedStrings: null }) },
      [
        ['workflow_start', 'a1'],
        ['a1', 'workflow_end'],
      ],
    );
    const job = await h.waitFor((await h.run(wf, { creds: CREDS }))._id, ENDED);
    expect(job.status).toBe('error');
    expect(errorOf(job, 'a1')).toContain(`"password":"${SECRET_MASK}"`);
    expect(leaks(await stored(job._id))).toEqual([]);
  });
});

describe('an app task whose answer is an error', () => {
  it('masks the request the error echoes: JSON-escaped, URL-encoded and as Basic auth, in its error and in the answer it keeps', async () => {
    h.services.set('admin.runTask', async (input) => {
      const { incoming } = input.body as { incoming: { account: { username: string; password: string } } };
      const { username, password } = incoming.account;
      const basic = Buffer.from(`${username}:${password}`).toString('base64');
      const form = `username=${encodeURIComponent(username)}&password=${encodeURIComponent(password)}`;
      throw new AppError(
        'INTEGRATION_CALL_FAILED',
        `POST https://idp.example/login answered 401 to ${JSON.stringify(incoming)} (Authorization: Basic ${basic}; body ${form})`,
        { details: { status: 401, headers: { 'www-authenticate': 'Basic' }, body: `rejected ${form}, Basic ${basic}` } },
      );
    });
    const login = task('login', { account: '$var.job.creds' }, { result: '$var.job.answer' }, { app: 'ExampleAdapter' });
    const wf = workflowDocument('secret-app', { a1: login }, [
      ['workflow_start', 'a1'],
      ['a1', 'workflow_end', 'error'],
    ]);
    const job = await h.waitFor((await h.run(wf, { creds: CREDS }))._id, ENDED);
    expect(job.status).toBe('complete');
    const error = errorOf(job, 'a1');
    expect(error).toContain('INTEGRATION_CALL_FAILED: POST https://idp.example/login answered 401 to');
    expect(error).toContain(`"password":"${SECRET_MASK}"`);
    expect(error).toContain(`Authorization: Basic ${SECRET_MASK}`);
    expect(error).toContain(`&password=${SECRET_MASK})`);
    expect(leaks(error)).toEqual([]);
    // the answer the error transition reads: what went wrong is still there
    expect(job.tasks.a1?.variables?.outgoing?.result).toEqual({
      status: 401,
      headers: { 'www-authenticate': 'Basic' },
      body: `rejected username=${USER}&password=${SECRET_MASK}, Basic ${SECRET_MASK}`,
    });
    expect(leaks(job.variables.answer)).toEqual([]);
    expect(leaks(await stored(job._id))).toEqual([]);
    expect(leaks(await publishedUntil(job._id, 'jobComplete'))).toEqual([]);
  });

  it('masks the error of an app that ends the job, in the job error entry, its stored events and the jobError event on the bus', async () => {
    h.services.set('studio.runTransformation', async (input) => {
      throw new AppError(
        'TRANSFORMATION_NOT_FOUND',
        `No transformation "jst-login" to run with ${JSON.stringify((input.body as { incoming: unknown }).incoming)}`,
      );
    });
    const wf = workflowDocument(
      'secret-ends-job',
      { t1: task('transformation', { tr_id: 'jst-login', variableMap: { account: '$var.job.creds' } }, { done: null }) },
      [
        ['workflow_start', 't1'],
        ['t1', 'workflow_end'],
      ],
    );
    const job = await h.waitFor((await h.run(wf, { creds: CREDS }))._id, ENDED);
    expect(job.status).toBe('error');
    expect(job.error).toEqual([expect.objectContaining({ task: 't1', message: expect.stringContaining(`"password":"${SECRET_MASK}"`) })]);
    expect(job.error[0]?.message).toContain('TRANSFORMATION_NOT_FOUND: No transformation "jst-login"');
    // the jobError event as the bus carried it (the gateway streams it over SSE as it is)
    const events = await publishedUntil(job._id, 'jobError');
    expect(events.find((e) => String(e.subject).endsWith('.jobError'))?.error).toEqual(job.error);
    expect(leaks(events)).toEqual([]);
    expect(leaks(await stored(job._id))).toEqual([]);
  });
});

describe('a child job that fails', () => {
  it("keeps the secret out of the child's error and of the parent's childJob task (its error and the job details it keeps)", async () => {
    const child = task('makeData', {
      input: 'token <!password!> for <!username!> is no JSON',
      variables: '$var.job.creds',
      outputType: 'json',
    });
    h.workflows.set(
      'secret-child',
      workflowDocument('secret-child', { c1: { ...child, variables: { ...child.variables, error: '$var.job.why' } } }, [
        ['workflow_start', 'c1'],
        ['c1', 'workflow_end'],
      ]),
    );
    const parent = await h.waitFor(
      (await h.run(parentOf('secret-parent', 'secret-child', { creds: { task: 'job', variable: 'creds' } }), { creds: CREDS }))._id,
      ENDED,
    );
    expect(parent.status).toBe('error');
    const childId = parent.tasks.cj?.childJobs?.[0]?._id ?? '';
    const childJob = await h.waitFor(childId, ENDED);
    expect(childJob.status).toBe('error');
    expect(errorOf(childJob, 'c1')).toBe(`makeData output is not valid JSON: token ${SECRET_MASK} for ${USER} is no JSON`);
    expect(errorOf(parent, 'cj')).toContain(`Child job ${childId} of workflow "secret-child" ended with status error`);
    const details = parent.tasks.cj?.variables?.outgoing?.job_details as { variables: Record<string, unknown> };
    // the child's variable holding its task's error, as the parent keeps it, says what went wrong
    expect(details.variables.why).toBe(errorOf(childJob, 'c1'));
    expect(leaks(parent.tasks.cj)).toEqual([]);
    expect(leaks(await stored(parent._id))).toEqual([]);
    expect(leaks(await stored(childId))).toEqual([]);
    expect(leaks(await publishedUntil(parent._id, 'jobError'))).toEqual([]);
    expect(leaks(await publishedUntil(childId, 'jobError'))).toEqual([]);
  });
});

describe('an automatic retry', () => {
  it('shows the error the task failed with, masked, while the retry waits', async () => {
    // a long delay: the test looks at the task while it waits, then cancels the job
    const retrySettings = { autoRetry: true, limit: 1, delay: 600_000, state: ['error'] };
    const wf = workflowDocument(
      'secret-auto-retry',
      { a1: task('stub', { type: 'error', response: '$var.job.api_token' }, { response: null }, { retrySettings }) },
      [
        ['workflow_start', 'a1'],
        ['a1', 'workflow_end'],
      ],
    );
    const token = 'tok-3f9a1c77e2b04d5e';
    const started = await h.run(wf, { api_token: token });
    const waiting = await h.waitUntil(started._id, (j) => typeof j.tasks.a1?.retryAt === 'number', 'a1 waiting for its retry');
    expect(errorOf(waiting, 'a1')).toBe(SECRET_MASK);
    const raw = await stored(started._id);
    expect(JSON.stringify(raw)).not.toContain(token);
    await h.engine.cancelJob(started._id, 'test');
  });
});

describe('a job of thousands of secret variables', () => {
  it('masks them in the errors and answers of each of its failing tasks, and completes', async () => {
    // 2,000 secrets of 64 characters, each its own: the job's mask is built once and kept
    const secrets = Array.from(
      { length: 2_000 },
      (_, i) => `${String(i).padStart(4, '0')}-${createHash('sha256').update(`s${i}`).digest('hex').slice(0, 59)}`,
    );
    const variables: Record<string, unknown> = Object.fromEntries(secrets.map((s, i) => [`db${i}_password`, s]));
    variables.creds = { username: USER, password: secrets[1999] };
    // not secret by name: only their texts say they hold a secret
    variables.bundle = { note: `key ${secrets[1234]} kept` };
    variables.echo = `Basic ${Buffer.from(secrets[42] ?? '').toString('base64')}`;
    const echoing = (response: string): ReturnType<typeof task> => task('stub', { type: 'error', response }, { response: null });
    const t2 = task('makeData', { input: 'login <!username!> with <!password!> refused', variables: '$var.job.creds', outputType: 'json' });
    const wf = workflowDocument(
      'many-secrets',
      {
        a1: echoing('$var.job.db7_password'),
        a2: t2,
        a3: task('stub', { type: 'error', response: '$var.job.bundle' }, { response: null }),
        a4: echoing('$var.job.echo'),
      },
      [
        ['workflow_start', 'a1'],
        ['a1', 'a2', 'error'],
        ['a2', 'a3', 'error'],
        ['a3', 'a4', 'error'],
        ['a4', 'workflow_end', 'error'],
      ],
    );
    const job = await h.waitFor((await h.run(wf, variables))._id, ENDED);
    expect(job.status).toBe('complete');
    expect(errorOf(job, 'a1')).toBe(SECRET_MASK);
    // the error cuts the text at 80 characters, inside the password: its start is masked
    expect(errorOf(job, 'a2')).toBe(`makeData output is not valid JSON: login ${USER} with ${SECRET_MASK}`);
    expect(job.tasks.a3?.variables?.outgoing?.response).toEqual({ note: `key ${SECRET_MASK} kept` });
    expect(errorOf(job, 'a4')).toBe(`Basic ${SECRET_MASK}`);
    const text = JSON.stringify(await stored(job._id));
    expect(secrets.filter((s) => text.includes(s) || text.includes(Buffer.from(s).toString('base64')))).toEqual([]);
  });
});
