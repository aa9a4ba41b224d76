import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SECRET_MASK, SYSTEM_CALLER } from '@nap/contracts';
import { createSecretBox } from '@nap/runtime';
import { createEmbeddedStore } from '@nap/store';
import type { EmbeddedStore } from '@nap/store';
import { createLogger } from '@nap/telemetry';
import { linearWorkflow, task, workflowDocument } from '@nap/testing';
import { newJobRecord, toPublicJob } from '../src/domain/job-model';
import type { JobRecord, JobTask } from '../src/domain/job-model';
import { JobRepository } from '../src/store/job-repository';
import { JobSealer, SEALED } from '../src/store/job-sealer';
import { JobValueRepository } from '../src/store/job-value-repository';
import type { JobValueRecord } from '../src/store/job-value-repository';
import { StoredJobSealing } from '../src/store/stored-job-sealing';
import type { StoredJobSealingParts } from '../src/store/stored-job-sealing';
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

describe('the jobs an earlier release stored in clear, sealed once at start', () => {
  const TOKEN = 'older-release-token-9d2e';

  /** A job as an earlier release stored it, in `status`: its secrets in clear; without `secretInputs` for one older still. */
  async function storeLegacy(job: JobRecord, status: JobRecord['status'], older = false): Promise<JobRecord> {
    const legacy = structuredClone({ ...job, status });
    if (older) delete legacy.secretInputs;
    await store.collection<JobRecord>('jobs').insertOne(structuredClone(legacy));
    return legacy;
  }

  /** A job of the release before secretInputs: a variable of a secret name, and a task's output that copied it. */
  function olderJob(id: string): JobRecord {
    const job = newJobRecord({
      id,
      workflow: linearWorkflow('older'),
      variables: { token: TOKEN, site: 'ams' },
      caller: SYSTEM_CALLER,
      serverId: 'engine-one',
      now: Date.now(),
    });
    const a1 = job.tasks.a1 as JobTask;
    job.tasks.a1 = { ...a1, status: 'complete', variables: { ...a1.variables, outgoing: { header: `Bearer ${TOKEN}` } } };
    return job;
  }

  function sealing(parts: Partial<StoredJobSealingParts> = {}, lines: string[] = []): StoredJobSealing {
    return new StoredJobSealing({
      store,
      jobs: repository,
      serverId: 'engine-one',
      leaseMs: 60_000,
      batchJobs: 2,
      log: createLogger({ name: 'sealing-test', level: 'info', destination: { write: (line: string) => lines.push(line) } }),
      ...parts,
    });
  }

  it('seals finished jobs of the previous release and of older ones, leaves running and archived jobs, and reads them back whole', async () => {
    const previous = await storeLegacy(secretJob('j-prev'), 'complete');
    const older = await storeLegacy(olderJob('j-older'), 'error', true);
    const running = await storeLegacy(secretJob('j-running'), 'running');
    const archived = await storeLegacy(olderJob('j-archived'), 'complete', true);
    await store.collection('jobs').updateOne({ _id: 'j-archived' }, { $set: { archive: 'batch-1' } });
    const plain = await storeLegacy(
      newJobRecord({
        id: 'j-plain',
        workflow: linearWorkflow('plain'),
        variables: { site: 'ams' },
        caller: SYSTEM_CALLER,
        serverId: 'e',
        now: 1,
      }),
      'complete',
    );
    // a large value an earlier release kept in job_values, in clear
    const small = new JobRepository(
      store.collection<JobRecord>('jobs'),
      new JobValueRepository(store.collection<JobValueRecord>('job_values'), { inlineBytes: 64, maxBytes: 15 * 1024 * 1024 }),
    );
    const large = { ...olderJob('j-large'), status: 'complete' as const };
    large.variables = { ...large.variables, listing: [`${'x'.repeat(200)} ${TOKEN}`, 'y'.repeat(200)] };
    delete large.secretInputs;
    await small.insert(large);
    const clearValues = (await store.collection('job_values').find({})).map((v) => v._id);
    expect(JSON.stringify(await store.collection('job_values').find({}))).toContain(TOKEN);

    const lines: string[] = [];
    // batches of two: the position is kept between them; the running job is waited for
    expect(await sealing({}, lines).run()).toBe('waiting');

    for (const id of ['j-prev', 'j-older', 'j-large']) {
      const text = JSON.stringify(await rawJob(id));
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(ACCESS_CODE);
      expect(text).not.toContain(TOKEN);
    }
    expect(JSON.stringify(await store.collection('job_values').find({}))).not.toContain(TOKEN);
    // the values in clear are gone, their sealed successors stored
    expect(await store.collection('job_values').countDocuments({ _id: { $in: clearValues } })).toBe(0);
    expect((await rawJob('j-older')).variables).toMatchObject({ token: { [SEALED]: expect.any(String) }, site: 'ams' });
    expect((await rawJob('j-prev')).variables).toMatchObject({ access: { code: { [SEALED]: expect.any(String) }, site: 'ams' } });
    // a running job is its engine's until it ends (noted to seal then), an archived one its archive's: as they were
    expect(await rawJob('j-running')).toEqual(running);
    expect(await rawJob('j-archived')).toEqual({ ...archived, archive: 'batch-1' });
    expect(await rawJob('j-plain')).toEqual(plain);

    // read back whole; a job of an older release now says it has secrets
    expect(await repository.findById('j-prev')).toEqual(previous);
    expect(await repository.findById('j-older')).toEqual({ ...older, secretInputs: [] });
    expect(await repository.findById('j-large')).toEqual({ ...large, secretInputs: [] });

    const logged = lines.map((line) => JSON.parse(line) as { msg: string; jobs?: number });
    expect(logged).toEqual([expect.objectContaining({ jobs: 3, msg: 'Jobs stored by an earlier release got their secrets sealed' })]);
    expect(await store.collection('job_sealing').findOne({ _id: 'jobs' })).toMatchObject({
      nextRunAt: expect.any(Number),
      passedAt: expect.any(Number),
      sealed: 3,
    });
    expect(await store.collection('job_sealing').find({ _id: { $ne: 'jobs' } })).toEqual([
      { _id: 'waiting:j-running', job: 'j-running', since: expect.any(Number) },
    ]);
  });

  it('leaves a job written, restarted or archived between its read and its write to that write', async () => {
    await storeLegacy(secretJob('j-restarted'), 'error');
    await storeLegacy(secretJob('j-marked'), 'complete');
    await storeLegacy(secretJob('j-kept'), 'complete');
    const jobs = store.collection<JobRecord>('jobs');
    // what other writers do right before the pass writes a job
    const meanwhile: Record<string, () => Promise<unknown>> = {
      'j-restarted': () =>
        jobs.updateOne(
          { _id: 'j-restarted' },
          { $set: { status: 'running', last_updated: new Date(Date.now() + 1_000).toISOString(), 'variables.added': 'by the restart' } },
        ),
      'j-marked': () => jobs.updateOne({ _id: 'j-marked' }, { $set: { archive: 'batch-2' } }),
    };
    const racing = new Proxy(jobs, {
      get(target, name, receiver) {
        if (name === 'updateOne')
          return async (...args: Parameters<typeof jobs.updateOne>) => {
            const id = String((args[0] as { _id?: unknown })._id);
            const other = meanwhile[id];
            delete meanwhile[id];
            if (other !== undefined) await other();
            return target.updateOne(...args);
          };
        const value: unknown = Reflect.get(target, name, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const racingRepository = new JobRepository(racing, undefined, new JobSealer(createSecretBox(KEY)));
    // the two it lost to another write are to be looked at again once they are done
    expect(await racingRepository.sealStoredBatch(undefined, 10)).toEqual({
      read: 3,
      sealed: 1,
      unreadable: 0,
      last: 'j-restarted',
      waiting: ['j-marked', 'j-restarted'],
    });

    const restarted = await rawJob('j-restarted');
    expect(restarted).toMatchObject({ status: 'running', variables: { password: PASSWORD, added: 'by the restart' } });
    expect(await rawJob('j-marked')).toMatchObject({ archive: 'batch-2', variables: { password: PASSWORD } });
    expect((await rawJob('j-kept')).variables).toMatchObject({ password: { [SEALED]: expect.any(String) } });
  });

  it('leaves a job sealed under another secret key as it is, counts it in one warning, and goes on with the others', async () => {
    // sealed by this release with a key the platform no longer has (NAP_SECRET_KEY changed)
    const foreign = repositoryWith('another-secret-key-of-32-chars!!');
    const sealedElsewhere = secretJob('j-foreign');
    sealedElsewhere.status = 'complete';
    await foreign.insert(sealedElsewhere);
    const before = await rawJob('j-foreign');
    await storeLegacy(olderJob('j-older'), 'complete', true);
    const lines: string[] = [];
    expect(await sealing({}, lines).run()).toBe('done');
    expect(await rawJob('j-foreign')).toEqual(before);
    expect((await rawJob('j-older')).variables).toMatchObject({ token: { [SEALED]: expect.any(String) } });
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; jobs?: number });
    expect(logged).toEqual([
      expect.objectContaining({ jobs: 1, msg: 'Jobs stored by an earlier release got their secrets sealed' }),
      expect.objectContaining({
        jobs: 1,
        msg: 'Jobs stored by an earlier release could not be read whole to seal their secrets; left as they are',
      }),
    ]);
  });

  it('goes on from its position after a failure, one replica at a time, and once through does nothing but one read', async () => {
    for (const id of ['j-1', 'j-2', 'j-3', 'j-4', 'j-5']) await storeLegacy(olderJob(id), 'complete', true);
    const afters: (string | undefined)[] = [];
    let fail = true;
    // what each batch waits for first (nothing until the second go)
    const batches = { gate: Promise.resolve() };
    const counting: StoredJobSealingParts['jobs'] = {
      sealStoredBatch: async (after, limit) => {
        afters.push(after);
        await batches.gate;
        // the store fails at the second batch: the first one's position is kept
        if (after !== undefined && fail) throw new Error('store unavailable');
        return repository.sealStoredBatch(after, limit);
      },
      sealStoredJobs: (ids) => repository.sealStoredJobs(ids),
    };
    await expect(sealing({ jobs: counting }).run()).rejects.toThrow('store unavailable');
    expect(afters).toEqual([undefined, 'j-2']);
    expect(await store.collection('job_sealing').findOne({ _id: 'jobs' })).toMatchObject({ nextRunAt: 0, after: 'j-2', sealed: 2 });
    expect(JSON.stringify(await rawJob('j-3'))).toContain(TOKEN);

    // another replica claims it while this one works: it waits
    fail = false;
    afters.length = 0;
    let open!: () => void;
    batches.gate = new Promise((resolve) => (open = resolve));
    const first = sealing({ jobs: counting }).run();
    while (afters.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await sealing({ jobs: counting, serverId: 'engine-two' }).run()).toBe('busy');
    open();
    expect(await first).toBe('done');
    // it went on from where it stood, not from the start
    expect(afters).toEqual(['j-2', 'j-4']);
    for (const id of ['j-3', 'j-4', 'j-5']) expect(JSON.stringify(await rawJob(id))).not.toContain(TOKEN);
    expect(await store.collection('job_sealing').findOne({ _id: 'jobs' })).toMatchObject({ nextRunAt: null, sealed: 5 });

    // done: a later start reads the one document and nothing more
    afters.length = 0;
    await storeLegacy(olderJob('j-6'), 'complete', true);
    expect(await sealing({ jobs: counting, serverId: 'engine-two' }).run()).toBe('complete');
    expect(afters).toEqual([]);
  });

  it('runs in the background once started, and stops with the service', async () => {
    await storeLegacy(olderJob('j-bg'), 'complete', true);
    const lines: string[] = [];
    const pass = sealing({}, lines);
    pass.start();
    while ((await store.collection('job_sealing').findOne({ _id: 'jobs' }))?.nextRunAt !== null)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await pass.stop();
    expect(JSON.stringify(await rawJob('j-bg'))).not.toContain(TOKEN);
    expect(lines).toHaveLength(1);
  });

  /**
   * What the engine of this release writes to a job an earlier release started, as it runs it on:
   * a step (only the task it changed, sealed), then the job's end. The job as the engine holds it after.
   */
  async function runToEnd(jobs: JobRepository, legacy: JobRecord): Promise<JobRecord> {
    const job = structuredClone(legacy);
    const task: JobTask = { ...(job.tasks.b2 as JobTask), status: 'complete', variables: { outgoing: { echo: `code ${ACCESS_CODE}` } } };
    expect(await jobs.writeClaimed(job._id, 'engine-one', { 'tasks.b2': task }, [], { steps: 0, job })).toBe(true);
    job.tasks.b2 = task;
    const end = Date.now();
    expect(await jobs.writeClaimed(job._id, 'engine-one', { status: 'complete', 'metrics.end_time': end }, [], { steps: 1, job })).toBe(
      true,
    );
    return { ...job, status: 'complete', steps: 2, metrics: { ...job.metrics, end_time: end } as JobRecord['metrics'] };
  }

  /** The jobs the pass waits for (those it noted active). */
  async function waitedFor(): Promise<string[]> {
    return (await store.collection('job_sealing').find({ _id: { $ne: 'jobs' } }, { sort: { _id: 1 } })).map((w) => String(w.job));
  }

  it('seals a job it found running once it finished, and reads it back whole', async () => {
    const legacy = await storeLegacy(secretJob('j-live'), 'running');
    const lines: string[] = [];
    // looks again at once
    const pass = sealing({ recheckMs: 0 }, lines);
    expect(await pass.run()).toBe('waiting');
    expect(await waitedFor()).toEqual(['j-live']);
    // the engine writes only what its steps change: what the earlier release stored stays in clear
    const ended = await runToEnd(repository, legacy);
    expect((await rawJob('j-live')).variables).toMatchObject({ password: PASSWORD, access: { code: ACCESS_CODE } });

    expect(await pass.run()).toBe('done');
    const text = await storedText();
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(ACCESS_CODE);
    expect((await rawJob('j-live')).variables).toMatchObject({ password: { [SEALED]: expect.any(String) } });
    // the job as its engine left it, secrets opened, through a repository of another process too
    expect(await repository.findById('j-live')).toEqual(ended);
    expect(await repositoryWith(KEY).findById('j-live')).toEqual(ended);
    expect(await waitedFor()).toEqual([]);
    expect(await store.collection('job_sealing').findOne({ _id: 'jobs' })).toMatchObject({ nextRunAt: null, sealed: 1 });
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; jobs?: number });
    expect(logged).toEqual([expect.objectContaining({ jobs: 1, msg: 'Jobs stored by an earlier release got their secrets sealed' })]);
    expect(await pass.run()).toBe('complete');
  });

  it('still seals a job it found running after a crash midway and a restart before the job ended', async () => {
    await storeLegacy(olderJob('j-1'), 'complete', true);
    const live = await storeLegacy(secretJob('j-2'), 'running');
    await storeLegacy(olderJob('j-3'), 'complete', true);
    // the replica dies at its second batch: the running job of the first is noted already
    const failing: StoredJobSealingParts['jobs'] = {
      sealStoredBatch: (after, limit) =>
        after === undefined ? repository.sealStoredBatch(after, limit) : Promise.reject(new Error('store unavailable')),
      sealStoredJobs: (ids) => repository.sealStoredJobs(ids),
    };
    await expect(sealing({ jobs: failing }).run()).rejects.toThrow('store unavailable');
    expect(await waitedFor()).toEqual(['j-2']);

    // restarted: a new process goes on in the background, and looks again while the job runs
    const restarted = repositoryWith(KEY);
    const pass = sealing({ jobs: restarted, recheckMs: 5 });
    pass.start();
    try {
      while ((await store.collection('job_sealing').findOne({ _id: 'jobs' }))?.passedAt === undefined)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(JSON.stringify(await rawJob('j-3'))).not.toContain(TOKEN);
      expect((await rawJob('j-2')).variables).toMatchObject({ password: PASSWORD });
      // its engine (the restarted process's) runs it to its end
      const ended = await runToEnd(restarted, live);
      while ((await store.collection('job_sealing').findOne({ _id: 'jobs' }))?.nextRunAt !== null)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await storedText()).not.toContain(PASSWORD);
      expect(await storedText()).not.toContain(ACCESS_CODE);
      expect(await restarted.findById('j-2')).toEqual(ended);
      expect(await store.collection('job_sealing').findOne({ _id: 'jobs' })).toMatchObject({ sealed: 3 });
    } finally {
      await pass.stop();
    }
  });

  it('ends for the others while a job it found active never finishes, and looks at that one only when the look is due', async () => {
    const ending = await storeLegacy(secretJob('j-ending'), 'running');
    const paused = await storeLegacy(secretJob('j-paused'), 'paused');
    await storeLegacy(olderJob('j-prev'), 'complete', true);
    const pass = sealing({ recheckMs: 0 });
    expect(await pass.run()).toBe('waiting');
    expect(JSON.stringify(await rawJob('j-prev'))).not.toContain(TOKEN);
    expect(await waitedFor()).toEqual(['j-ending', 'j-paused']);

    const ended = await runToEnd(repository, ending);
    // this look sets the next one a minute on
    expect(await sealing().run()).toBe('waiting');
    // the one that ended is sealed and let go; the paused one is its engine's, as it was
    expect(JSON.stringify(await rawJob('j-ending'))).not.toContain(PASSWORD);
    expect(await repository.findById('j-ending')).toEqual(ended);
    expect(await rawJob('j-paused')).toEqual(paused);
    expect(await waitedFor()).toEqual(['j-paused']);
    expect(await store.collection('job_sealing').findOne({ _id: 'jobs' })).toMatchObject({ nextRunAt: expect.any(Number), sealed: 2 });

    // until the next look is due, a start reads the one document and nothing more
    const looked: string[][] = [];
    const counting: StoredJobSealingParts['jobs'] = {
      sealStoredBatch: () => Promise.reject(new Error('the pass went through every job already')),
      sealStoredJobs: (ids) => {
        looked.push(ids);
        return repository.sealStoredJobs(ids);
      },
    };
    expect(await sealing({ jobs: counting, serverId: 'engine-two' }).run()).toBe('waiting');
    expect(looked).toEqual([]);
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
