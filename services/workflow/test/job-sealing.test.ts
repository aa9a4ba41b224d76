import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SECRET_MASK, SYSTEM_CALLER } from '@nap/contracts';
import { createSecretBox } from '@nap/runtime';
import { createEmbeddedStore } from '@nap/store';
import type { EmbeddedStore } from '@nap/store';
import { linearWorkflow, task, workflowDocument } from '@nap/testing';
import { newJobRecord, toPublicJob } from '../src/domain/job-model';
import type { JobRecord, JobTask } from '../src/domain/job-model';
import { JobRepository } from '../src/store/job-repository';
import { JobSealer, SEALED } from '../src/store/job-sealer';
import { JobValueRepository } from '../src/store/job-value-repository';
import type { JobValueRecord } from '../src/store/job-value-repository';
import { parentOf } from './support/child-job';
import { startEngineHarness } from './support/harness';

/**
 * The secrets of a job are sealed in the store (`store/job-sealer`): on a real embedded store, what
 * the repository writes holds none of them in clear, wherever a task copied them, and what it reads
 * back is the job as the engine wrote it. Jobs without secrets, and jobs an earlier release stored
 * in clear, are read as they are.
 */

const KEY = 'job-sealing-test-secret-key-32ch';
const PASSWORD = 'sealed-pass-7f3a9c';
const ACCESS_CODE = 'declared-code-51be';

let dir: string;
let store: EmbeddedStore;
let repository: JobRepository;

function repositoryWith(key: string, inlineBytes = 64 * 1024): JobRepository {
  return new JobRepository(
    store.collection<JobRecord>('jobs'),
    new JobValueRepository(store.collection<JobValueRecord>('job_values'), { inlineBytes, maxBytes: 15 * 1024 * 1024 }),
    new JobSealer(createSecretBox(key)),
  );
}

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-job-sealing-'));
  store = createEmbeddedStore({ path: path.join(dir, 'db') });
  repository = repositoryWith(KEY);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A new job of a workflow whose inputSchema declares `access.code` a password field, started with a secret-named and a declared secret. */
function secretJob(
  id: string,
  variables: Record<string, unknown> = { password: PASSWORD, access: { code: ACCESS_CODE, site: 'ams' } },
): JobRecord {
  return newJobRecord({
    id,
    workflow: linearWorkflow('sealing', {
      inputSchema: {
        type: 'object',
        properties: { access: { type: 'object', properties: { code: { type: 'string', format: 'password' } } } },
      },
    }),
    variables,
    caller: SYSTEM_CALLER,
    serverId: 'engine-one',
    now: Date.now(),
  });
}

/** Everything the workflow store holds, as text: where a secret in clear would show. */
async function storedText(): Promise<string> {
  const parts: unknown[] = [];
  for (const name of await store.listCollections()) parts.push(await store.collection(name).find({}));
  return JSON.stringify(parts);
}

async function rawJob(id: string): Promise<Record<string, unknown>> {
  const raw = await store.collection('jobs').findOne({ _id: id });
  if (raw === null) throw new Error(`no job ${id}`);
  return raw;
}

describe('a job with secrets, in the store', () => {
  it('is stored with its secrets sealed (secret-named and declared) and read back whole', async () => {
    const job = secretJob('j-round');
    const before = structuredClone(job);
    await repository.insert(job);
    // the job given is not changed: the engine goes on with it
    expect(job).toEqual(before);
    const raw = await rawJob('j-round');
    const text = await storedText();
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(ACCESS_CODE);
    // sealed where they were; what is no secret stays as it is (searchable)
    const variables = raw.variables as Record<string, Record<string, unknown>>;
    expect(variables.password).toEqual({ [SEALED]: expect.stringMatching(/^v1\./) });
    expect(variables.access).toEqual({ code: { [SEALED]: expect.any(String) }, site: 'ams' });
    expect(await repository.findById('j-round')).toEqual(before);
    expect(await repository.findByIds(['j-round'])).toEqual([before]);
  });

  it("seals a task's copies: an outgoing value that embeds a secret, a resolved incoming, a job variable of another name", async () => {
    const job = secretJob('j-copy');
    await repository.insert(job);
    const a1 = job.tasks.a1 as JobTask;
    const task: JobTask = {
      ...a1,
      status: 'complete',
      variables: {
        ...a1.variables,
        incoming: { ...a1.variables?.incoming },
        resolved: { body: ACCESS_CODE, creds: { user: 'ops', password: PASSWORD } },
        outgoing: { summary: `logged in with ${PASSWORD}; code ${encodeURIComponent(ACCESS_CODE)}`, count: 3 },
      },
    };
    const variables = { ...job.variables, copied: PASSWORD, note: 'plain' };
    const written = await repository.writeClaimed('j-copy', 'engine-one', { 'tasks.a1': task, variables }, [], {
      steps: 0,
      job: { ...job, variables },
    });
    expect(written).toBe(true);
    expect(await storedText()).not.toContain(PASSWORD);
    expect(await storedText()).not.toContain(ACCESS_CODE);
    const raw = await rawJob('j-copy');
    const outgoing = (raw.tasks as Record<string, JobTask>).a1?.variables?.outgoing as Record<string, unknown>;
    expect(outgoing).toEqual({ summary: { [SEALED]: expect.any(String) }, count: 3 });
    expect((raw.variables as Record<string, unknown>).note).toBe('plain');

    const read = (await repository.findById('j-copy')) as JobRecord;
    expect(read.tasks.a1).toEqual(task);
    expect(read.variables).toEqual(variables);
    // answers mask as before
    const shown = JSON.stringify(toPublicJob(read));
    expect(shown).not.toContain(PASSWORD);
    expect(shown).not.toContain(ACCESS_CODE);
    expect(shown).toContain(SECRET_MASK);

    // a page of projected jobs reads them opened, without the member the seal is told by when not asked for
    const page = await repository.page({
      filter: { _id: 'j-copy' },
      sort: { _id: 1 },
      skip: 0,
      limit: 10,
      countLimit: 10,
      projection: { _id: 1, variables: 1 },
    });
    expect(page.items).toEqual([{ _id: 'j-copy', variables }]);
  });

  it("seals a person's answer holding a password, and from then on the writes of a job that had no secrets", async () => {
    const job = newJobRecord({
      id: 'j-plain',
      workflow: linearWorkflow('plain'),
      variables: { site: 'ams' },
      caller: SYSTEM_CALLER,
      serverId: 'engine-one',
      now: 1,
    });
    (job.tasks.a1 as JobTask).status = 'running';
    await repository.insert(job);
    expect(job.secretInputs).toBeUndefined();
    const after = await repository.requestFinish(
      'j-plain',
      'a1',
      { variables: { password: PASSWORD, note: 'done' }, finishState: 'success', by: 'ops', at: 2 },
      job,
    );
    expect(after?.tasks.a1?.finishRequest?.variables).toEqual({ password: PASSWORD, note: 'done' });
    expect(after?.secretInputs).toEqual([]);
    expect(await storedText()).not.toContain(PASSWORD);
    // the owner applies it: the outgoing value and a copy in a variable are sealed too
    const task: JobTask = { ...(after?.tasks.a1 as JobTask), status: 'complete', variables: { outgoing: { password: PASSWORD } } };
    delete task.finishRequest;
    const variables = { ...job.variables, echoed: `pw=${PASSWORD}` };
    await repository.writeClaimed('j-plain', 'engine-one', { 'tasks.a1': task, variables }, [], {
      steps: 0,
      job: { ...(after as JobRecord), variables },
    });
    expect(await storedText()).not.toContain(PASSWORD);
    const read = (await repository.findById('j-plain')) as JobRecord;
    expect(read.tasks.a1?.variables?.outgoing).toEqual({ password: PASSWORD });
    expect(read.variables.echoed).toBe(`pw=${PASSWORD}`);
  });

  it("seals a task's output of a secret name in a job that had no secrets, and every write of that job after it", async () => {
    const job = newJobRecord({
      id: 'j-output',
      workflow: linearWorkflow('output'),
      variables: { site: 'ams' },
      caller: SYSTEM_CALLER,
      serverId: 'engine-one',
      now: 1,
    });
    await repository.insert(job);
    // an adapter call answered a token: the job had no secrets until this write
    const task: JobTask = { ...(job.tasks.a1 as JobTask), status: 'complete', variables: { outgoing: { response: { token: PASSWORD } } } };
    await repository.writeClaimed('j-output', 'engine-one', { 'tasks.a1': task }, [], { steps: 0, job });
    expect(job.secretInputs).toEqual([]);
    expect(await storedText()).not.toContain(PASSWORD);
    // a later write copies it into a variable of another name: sealed as a copy of the job's secret
    const variables = { ...job.variables, header: `Bearer ${PASSWORD}` };
    await repository.writeClaimed('j-output', 'engine-one', { variables }, [], { steps: 1, job: { ...job, variables } });
    expect(await storedText()).not.toContain(PASSWORD);
    const read = (await repository.findById('j-output')) as JobRecord;
    expect(read.tasks.a1?.variables?.outgoing).toEqual({ response: { token: PASSWORD } });
    expect(read.variables.header).toBe(`Bearer ${PASSWORD}`);
    expect(read.secretInputs).toEqual([]);
  });

  it('keeps a large value that holds a secret sealed in job_values too', async () => {
    const small = repositoryWith(KEY, 64);
    const job = secretJob('j-large', { password: PASSWORD, listing: [`${'x'.repeat(200)} ${PASSWORD}`, 'y'.repeat(200)] });
    await small.insert(job);
    expect((await store.collection('job_values').countDocuments({})) > 0).toBe(true);
    expect(await storedText()).not.toContain(PASSWORD);
    expect((await small.findById('j-large'))?.variables).toEqual(job.variables);
  });

  it('never seals what the store matches a task by (its status, name, times), even when a secret is an ordinary word they hold', async () => {
    const job = secretJob('j-word', { password: 'complete' });
    await repository.insert(job);
    const task: JobTask = { ...(job.tasks.a1 as JobTask), status: 'complete', variables: { outgoing: { state: 'complete' } } };
    await repository.writeClaimed('j-word', 'engine-one', { 'tasks.a1': task }, [], { steps: 0, job });
    const raw = (await rawJob('j-word')).tasks as Record<string, JobTask>;
    expect(raw.a1?.status).toBe('complete');
    expect(raw.a1?.name).toBe('newVariable');
    expect(raw.a1?.variables?.outgoing).toEqual({ state: { [SEALED]: expect.any(String) } });
    expect(await store.collection('jobs').countDocuments({ 'tasks.a1.status': 'complete' })).toBe(1);
  });

  it('reads back a value a caller gave that looks like a sealed one as it was given', async () => {
    const job = secretJob('j-lookalike', { password: PASSWORD, forged: { [SEALED]: 'v1.not.sealed.here' } });
    await repository.insert(job);
    expect((await repository.findById('j-lookalike'))?.variables).toEqual(job.variables);
  });

  it('cannot be read with another secret key: INTERNAL, naming the job and NAP_SECRET_KEY', async () => {
    await repository.insert(secretJob('j-key'));
    await expect(repositoryWith('another-secret-key-of-32-chars-xx').findById('j-key')).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/job "j-key".*NAP_SECRET_KEY/),
    });
  });
});

describe('jobs the sealing leaves as they are', () => {
  it('a job without secrets: stored and written untouched, not copied', async () => {
    const job = newJobRecord({
      id: 'j-none',
      workflow: linearWorkflow('none'),
      variables: { site: 'ams' },
      caller: SYSTEM_CALLER,
      serverId: 'e',
      now: 1,
    });
    const sealer = new JobSealer(createSecretBox(KEY));
    expect(sealer.sealJob(job)).toBe(job);
    const set = { variables: { site: 'ams', note: `not a secret ${PASSWORD}` } };
    expect(sealer.sealSet(job, set)).toBe(set);
    await repository.insert(job);
    expect(await repository.findById('j-none')).toEqual(job);
  });

  it('a job an earlier release stored with its secrets in clear: read as it is, and what is written to it from then on is sealed', async () => {
    const legacy = secretJob('j-legacy');
    await store.collection<JobRecord>('jobs').insertOne(structuredClone(legacy));
    expect(await repository.findById('j-legacy')).toEqual(legacy);
    const task: JobTask = { ...(legacy.tasks.b2 as JobTask), status: 'complete', variables: { outgoing: { echo: `code ${ACCESS_CODE}` } } };
    await repository.writeClaimed('j-legacy', 'engine-one', { 'tasks.b2': task }, [], { steps: 0, job: legacy });
    const raw = await rawJob('j-legacy');
    expect(JSON.stringify((raw.tasks as Record<string, unknown>).b2)).not.toContain(ACCESS_CODE);
    // the members not written again keep what the earlier release wrote
    expect((raw.variables as Record<string, unknown>).password).toBe(PASSWORD);
    const read = (await repository.findById('j-legacy')) as JobRecord;
    expect(read.variables).toEqual(legacy.variables);
    expect(read.tasks.b2).toEqual(task);
  });
});

describe('an engine running a job with secrets', () => {
  it('runs a child job with the secret its parent passed under another name, sealed in both and masked in the child', async () => {
    const h = await startEngineHarness();
    try {
      h.workflows.set(
        'sealed-child',
        workflowDocument('sealed-child', { c1: task('newVariable', { name: 'copy', value: '$var.job.code' }) }, [
          ['workflow_start', 'c1'],
          ['c1', 'workflow_end'],
        ]),
      );
      const started = await h.run(parentOf('sealed-parent', 'sealed-child', { code: { task: 'job', variable: 'password' } }), {
        password: PASSWORD,
      });
      const parent = await h.waitFor(started._id, ['complete', 'error']);
      expect(parent.status).toBe('complete');
      const childId = parent.tasks.cj?.childJobs?.[0]?._id ?? '';
      const child = await h.waitFor(childId, ['complete']);
      // the child ran with the secret in clear, and gave it back to its parent
      expect(child.variables).toMatchObject({ code: PASSWORD, copy: PASSWORD });
      expect(parent.tasks.cj?.variables?.outgoing?.job_details).toMatchObject({ variables: { code: PASSWORD } });
      // the store holds it in neither job
      expect(JSON.stringify(await h.store.collection('jobs').find({}))).not.toContain(PASSWORD);
      // and the child, which knows it as `code`, masks it
      expect(JSON.stringify(toPublicJob(child))).not.toContain(PASSWORD);
    } finally {
      await h.stop();
    }
  });
});
