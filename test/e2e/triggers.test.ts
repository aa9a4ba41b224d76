import type { JobDocument, Trigger } from '@nap/contracts';
import { createSecretBox } from '@nap/runtime';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';
import { createAutomation, greetWorkflow, jobsOf as jobsOfWorkflow, scheduleMarker, variablesOf, waitForJob } from '../support/automation';
import { readEvents } from '../support/sse';

/**
 * The operations manager's triggers through HTTP: records (create, list with the shared filters,
 * change, export, import, delete), and each type starting its automation: endpoint (schema checked,
 * body as job variables), manual (form data checked against the form), schedule (repeated due
 * times) and eventSystem (a job of another automation completing).
 */

let platform: TestPlatform;
let token: string;
let greetId: string;

type Envelope<T> = { message: string; data: T; metadata: Record<string, unknown> };

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  greetId = await createAutomation(
    platform,
    token,
    greetWorkflow('greet', { inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] } }),
  );
}, 60_000);

afterAll(async () => {
  await platform.stop();
});

async function createTrigger(body: Record<string, unknown>): Promise<Trigger> {
  const res = await platform.http('POST', '/operations-manager/triggers', { token, body });
  if (res.status !== 200) throw new Error(`Creating trigger: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as Envelope<Trigger>).data;
}

function jobsOf(workflow: string): Promise<JobDocument[]> {
  return jobsOfWorkflow(platform, token, workflow);
}

describe('endpoint triggers', () => {
  let trigger: Trigger;

  beforeAll(async () => {
    trigger = await createTrigger({
      name: 'greet over HTTP',
      type: 'endpoint',
      actionId: greetId,
      routeName: 'greet-me',
      schema: { type: 'object', properties: { who: { type: 'string', minLength: 2 } }, required: ['who'] },
    });
  });

  it('validates the body against the schema, starts the workflow with it as variables, and answers the job', async () => {
    expect(trigger).toMatchObject({
      type: 'endpoint',
      enabled: true,
      actionType: 'automations',
      verb: 'POST',
      routeName: 'greet-me',
      createdBy: 'admin',
    });
    const res = await platform.http('POST', '/operations-manager/triggers/endpoint/greet-me', { token, body: { who: 'network' } });
    expect(res.status).toBe(200);
    const { message, data, metadata } = res.body as Envelope<JobDocument>;
    expect(message).toBe('Successfully created the requested item');
    expect(metadata).toEqual({});
    expect(data).toMatchObject({ name: 'greet', status: 'running' });
    // the job says which trigger started it
    expect(data.trigger).toEqual({ _id: trigger._id, name: 'greet over HTTP', type: 'endpoint', automationId: greetId });
    const done = await waitForJob(platform, token, data._id);
    expect(done.status).toBe('complete');
    expect(done.variables).toMatchObject({ who: 'network', greeting: 'hello network' });
    expect((await platform.http('GET', `/operations-manager/triggers/${trigger._id}`, { token })).body).toMatchObject({
      data: { lastExecuted: expect.any(Number) },
    });
  });

  it('refuses a body that does not match, naming the member, and starts nothing', async () => {
    const before = (await jobsOf('greet')).length;
    const res = await platform.http('POST', '/operations-manager/triggers/endpoint/greet-me', { token, body: { who: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.who' }] });
    const missing = await platform.http('POST', '/operations-manager/triggers/endpoint/greet-me', { token, body: {} });
    expect(missing.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.who' }] });
    expect((await jobsOf('greet')).length).toBe(before);
  });

  it('answers 404 for an unknown route name, 409 for a disabled trigger and for a route name in use', async () => {
    expect((await platform.http('POST', '/operations-manager/triggers/endpoint/nobody-here', { token, body: {} })).body).toMatchObject({
      code: 'TRIGGER_NOT_FOUND',
    });
    const clash = await platform.http('POST', '/operations-manager/triggers', {
      token,
      body: { trigger: { name: 'again', type: 'endpoint', actionId: greetId, routeName: 'greet-me' } },
    });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({
      code: 'TRIGGER_ALREADY_EXISTS',
      message: `The route name "greet-me" is taken by endpoint trigger "${trigger.name}" (${trigger._id}): give body.routeName another value`,
    });
    const off = await platform.http('PATCH', `/operations-manager/triggers/${trigger._id}`, { token, body: { enabled: false } });
    expect(off.status).toBe(200);
    expect((off.body as Envelope<Trigger>).data).toMatchObject({ enabled: false, routeName: 'greet-me' });
    const refused = await platform.http('POST', '/operations-manager/triggers/endpoint/greet-me', { token, body: { who: 'network' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'TRIGGER_DISABLED' });
    await platform.http('PATCH', `/operations-manager/triggers/${trigger._id}`, { token, body: { changes: { enabled: true } } });
    expect((await platform.http('POST', '/operations-manager/triggers/endpoint/greet-me', { token, body: { who: 'again' } })).status).toBe(
      200,
    );
  });

  it("transforms the body with the trigger's JST (by id, or as an exported document with its _id) before the job starts", async () => {
    const shout = {
      name: 'shout',
      incoming: [{ $id: 'who', type: 'string' }],
      outgoing: [{ $id: 'who', type: 'string' }],
      steps: [
        { id: 1, type: 'method', library: 'String', method: 'toUpperCase', args: [null] },
        {
          id: 2,
          type: 'assign',
          from: { location: 'incoming', name: 'who', ptr: '' },
          to: { location: 'method', name: 1, ptr: '/args/0/value' },
        },
        {
          id: 3,
          type: 'assign',
          from: { location: 'method', name: 1, ptr: '/return' },
          to: { location: 'outgoing', name: 'who', ptr: '' },
        },
      ],
      functions: [],
    };
    const jst = await platform.http('POST', '/transformations', { token, body: shout });
    expect(jst.status).toBe(200);
    const jstId = (jst.body as { _id: string })._id;
    await createTrigger({
      name: 'shouted greet',
      type: 'endpoint',
      actionId: greetId,
      routeName: 'shout-greet',
      jst: jstId,
      schema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
    });
    await createTrigger({
      name: 'shouted greet 2',
      type: 'endpoint',
      actionId: greetId,
      routeName: 'shout-greet-2',
      jst: { ...shout, _id: jstId },
    });
    for (const route of ['shout-greet', 'shout-greet-2']) {
      const res = await platform.http('POST', `/operations-manager/triggers/endpoint/${route}`, { token, body: { who: 'quiet' } });
      expect(res.status).toBe(200);
      const done = await waitForJob(platform, token, (res.body as Envelope<JobDocument>).data._id);
      expect(done.variables).toMatchObject({ who: 'QUIET', greeting: 'hello QUIET' });
    }
    const missing = await createTrigger({
      name: 'gone jst',
      type: 'endpoint',
      actionId: greetId,
      routeName: 'gone-jst',
      jst: 'no-such-transformation',
    });
    const refused = await platform.http('POST', `/operations-manager/triggers/endpoint/${String(missing.routeName)}`, {
      token,
      body: { who: 'x' },
    });
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ code: 'TRANSFORMATION_NOT_FOUND' });
  });

  it('refuses bad records naming the member', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'no route', type: 'endpoint', actionId: greetId }, 'body.routeName'],
      [{ name: 'bad route', type: 'endpoint', actionId: greetId, routeName: 'a/b' }, 'body.routeName'],
      [{ name: 'no type', actionId: greetId }, 'body.type'],
      [{ name: 'odd type', type: 'webhook', actionId: greetId }, 'body.type'],
      [{ name: 'no first run', type: 'schedule', actionId: greetId }, 'body.firstRunAt'],
      [{ name: 'bad unit', type: 'schedule', actionId: greetId, firstRunAt: Date.now(), repeatUnit: 'fortnight' }, 'body.repeatUnit'],
      [{ name: 'no topic', type: 'eventSystem', actionId: greetId }, 'body.topic'],
      [{ name: 'odd topic', type: 'eventSystem', actionId: greetId, topic: 'somethingHappened' }, 'body.topic'],
    ];
    for (const [body, member] of cases) {
      const res = await platform.http('POST', '/operations-manager/triggers', { token, body });
      expect({ body: res.body, status: res.status }).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_FAILED', details: expect.arrayContaining([expect.objectContaining({ member })]) },
      });
    }
    const orphan = await platform.http('POST', '/operations-manager/triggers', {
      token,
      body: { name: 'orphan', type: 'manual', actionId: 'no-such-automation' },
    });
    expect(orphan.body).toMatchObject({ code: 'AUTOMATION_NOT_FOUND' });
  });
});

describe('trigger records', () => {
  it('lists with equals/equalsField (or field-wise), enabled, skip and limit → { data, metadata: { total } }', async () => {
    await createTrigger({ name: 'list-a', type: 'manual', actionId: greetId });
    await createTrigger({ name: 'list-b', type: 'manual', actionId: greetId, enabled: false });
    const endpoints = await platform.http('GET', '/operations-manager/triggers?equals=endpoint&equalsField=type&enabled=true', { token });
    expect(endpoints.status).toBe(200);
    const page = endpoints.body as { data: Trigger[]; metadata: { total: number } };
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data.every((t) => t.type === 'endpoint' && t.enabled)).toBe(true);
    expect(page.metadata.total).toBe(page.data.length);
    const manual = (await platform.http('GET', '/operations-manager/triggers?equals[type]=manual', { token })).body as {
      data: Trigger[];
      metadata: { total: number };
    };
    expect(manual.data.map((t) => t.name)).toEqual(expect.arrayContaining(['list-a', 'list-b']));
    const disabled = (await platform.http('GET', '/operations-manager/triggers?enabled=false&equals=manual&equalsField=type', { token }))
      .body as { data: Trigger[] };
    expect(disabled.data.map((t) => t.name)).toEqual(['list-b']);
    const paged = (await platform.http('GET', '/operations-manager/triggers?limit=1&skip=1', { token })).body as {
      data: Trigger[];
      metadata: { total: number; skip: number; limit: number };
    };
    expect(paged.data).toHaveLength(1);
    expect(paged.metadata).toMatchObject({ skip: 1, limit: 1 });
    expect(paged.metadata.total).toBeGreaterThan(2);
    expect((await platform.http('GET', '/operations-manager/triggers?equals=x&equalsField=password', { token })).body).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('exports, imports back per item, and deletes one or all of an automation', async () => {
    const original = await createTrigger({ name: 'to export', type: 'endpoint', actionId: greetId, routeName: 'export-me' });
    const exported = (await platform.http('GET', `/operations-manager/triggers/${original._id}/export`, { token }))
      .body as Envelope<Trigger>;
    expect(exported.data).toMatchObject({ _id: original._id, name: 'to export', routeName: 'export-me' });
    expect((await platform.http('DELETE', `/operations-manager/triggers/${original._id}`, { token })).body).toMatchObject({
      data: { deleted: 1 },
    });
    expect((await platform.http('GET', `/operations-manager/triggers/${original._id}`, { token })).status).toBe(404);
    const imported = await platform.http('PUT', '/operations-manager/triggers', {
      token,
      body: { triggers: [exported.data, { name: 'broken', type: 'endpoint', actionId: greetId }] },
    });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({
      status: 'success',
      message: 'Imported 1 of 2 triggers',
      imported: [
        { success: true, created: { _id: original._id, routeName: 'export-me' } },
        { success: false, created: null, message: expect.stringContaining('routeName') },
      ],
    });
    // an event trigger on an adapter's topic (exported by another platform) comes in disabled, and the answer says so
    const kafka = await platform.http('PUT', '/operations-manager/triggers', {
      token,
      body: {
        triggers: [
          {
            name: 'on kafka',
            type: 'eventSystem',
            enabled: true,
            actionId: greetId,
            source: '@itentialopensource/adapter-kafkav2',
            topic: 'kafka',
            jst: null,
          },
        ],
      },
    });
    expect(kafka.body).toMatchObject({
      message: 'Imported 1 of 1 triggers',
      imported: [
        {
          success: true,
          message:
            'Trigger "on kafka" imported. Note: trigger "on kafka" was imported disabled: "kafka" of "@itentialopensource/adapter-kafkav2" is no event this platform publishes',
          created: { enabled: false, topic: 'kafka', source: '@itentialopensource/adapter-kafkav2' },
        },
      ],
    });
    // created so by hand, the same trigger enabled is refused, naming the topic
    const enabled = await platform.http('POST', '/operations-manager/triggers', {
      token,
      body: { name: 'on kafka, enabled', type: 'eventSystem', actionId: greetId, source: 'kafka-adapter', topic: 'kafka' },
    });
    expect(enabled).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', details: [{ member: expect.stringMatching(/topic$/) }] },
    });
    const other = await createAutomation(platform, token, greetWorkflow('greet-2'));
    await createTrigger({ name: 'other 1', type: 'manual', actionId: other });
    await createTrigger({ name: 'other 2', type: 'endpoint', actionId: other, routeName: 'other-2' });
    expect((await platform.http('DELETE', `/operations-manager/triggers/action/${other}`, { token })).body).toMatchObject({
      data: { deleted: 2 },
    });
    expect(
      ((await platform.http('GET', `/operations-manager/triggers?actionId=${other}`, { token })).body as { metadata: { total: number } })
        .metadata.total,
    ).toBe(0);
  });

  it('deletes an automation with its triggers', async () => {
    const id = await createAutomation(platform, token, greetWorkflow('greet-3'));
    await createTrigger({ name: 'goes with it', type: 'endpoint', actionId: id, routeName: 'goes-with-it' });
    const res = await platform.http('DELETE', `/operations-manager/automations/${id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { automation: { deleted: 1 }, triggers: { deleted: 1 } } });
    expect((await platform.http('GET', `/operations-manager/automations/${id}`, { token })).status).toBe(404);
    expect((await platform.http('POST', '/operations-manager/triggers/endpoint/goes-with-it', { token, body: {} })).status).toBe(404);
    const list = (await platform.http('GET', '/operations-manager/automations?equals=greet automation&equalsField=name', { token }))
      .body as { data: { _id: string }[]; metadata: { total: number } };
    expect(list.data.map((a) => a._id)).toEqual([greetId]);
  });
});

describe('manual triggers', () => {
  it('checks the form data against the form and starts the job with it', async () => {
    const form = await platform.http('POST', '/formbuilder/forms', {
      token,
      body: {
        form: {
          name: 'who form',
          struct: {},
          schema: { type: 'object', properties: { who: { type: 'string', enum: ['ops', 'eng'] } }, required: ['who'] },
        },
      },
    });
    expect(form.status).toBe(200);
    const formId = (form.body as { data: { _id: string } }).data._id;
    const trigger = await createTrigger({ name: 'greet by hand', type: 'manual', actionId: greetId, formId, formData: { who: 'ops' } });
    const bad = await platform.http('POST', `/operations-manager/triggers/manual/${trigger._id}/run`, {
      token,
      body: { formData: { who: 'everyone' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.formData.who' }] });
    // the form data given bare, without its formData wrapper, is refused, not run on the defaults
    const bare = await platform.http('POST', `/operations-manager/triggers/manual/${trigger._id}/run`, { token, body: { who: 'eng' } });
    expect(bare).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ member: 'body.who' }] } });
    expect((bare.body as { message: string }).message).toContain(`it goes inside 'formData'`);
    const res = await platform.http('POST', `/operations-manager/triggers/manual/${trigger._id}/run`, {
      token,
      body: { formData: { who: 'eng' } },
    });
    expect(res.status).toBe(200);
    const job = await waitForJob(platform, token, (res.body as Envelope<JobDocument>).data._id);
    expect(job.variables).toMatchObject({ who: 'eng', greeting: 'hello eng' });
    expect(job.trigger).toEqual({ _id: trigger._id, name: 'greet by hand', type: 'manual', automationId: greetId });
    const defaults = await platform.http('POST', `/operations-manager/triggers/manual/${trigger._id}/run`, { token, body: {} });
    expect((await waitForJob(platform, token, (defaults.body as Envelope<JobDocument>).data._id)).variables).toMatchObject({
      greeting: 'hello ops',
    });
  });
});

describe('secrets in form data', () => {
  it('answers and exports them masked, keeps them when written back masked, and starts jobs with them whole', async () => {
    // the job copies the token into a member of no secret name
    const copier = await createAutomation(
      platform,
      token,
      workflowDocument('copy-token', { a1: task('newVariable', { name: 'copied', value: '$var.job.api_token' }, { value: null }) }, [
        ['workflow_start', 'a1'],
        ['a1', 'workflow_end'],
      ]),
    );
    const secret = 'tok-kept-by-a-trigger';
    const created = await createTrigger({
      name: 'copy by hand',
      type: 'manual',
      actionId: copier,
      formData: { api_token: secret, site: 'ams' },
    });
    expect(created.formData).toEqual({ api_token: '********', site: 'ams' });
    for (const route of [
      `/operations-manager/triggers/${created._id}`,
      `/operations-manager/triggers/${created._id}/export`,
      `/operations-manager/triggers?equals[name]=copy by hand`,
    ]) {
      const answer = await platform.http('GET', route, { token });
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.body)).toContain('"api_token":"********"');
      expect(JSON.stringify(answer.body)).not.toContain(secret);
    }
    // written back as read, one member changed: the token stays
    const changed = await platform.http('PATCH', `/operations-manager/triggers/${created._id}`, {
      token,
      body: { formData: { api_token: '********', site: 'fra' } },
    });
    expect(changed).toMatchObject({ status: 200, body: { data: { formData: { api_token: '********', site: 'fra' } } } });
    const run = await platform.http('POST', `/operations-manager/triggers/manual/${created._id}/run`, { token, body: {} });
    expect(run.status).toBe(200);
    const job = await waitForJob(platform, token, (run.body as Envelope<JobDocument>).data._id);
    // the job ran with the token itself (a task copied it); every copy of it is answered masked
    expect(job.variables).toMatchObject({ api_token: '********', site: 'fra', copied: '********' });
    // and stored sealed with the platform's secret key, the token and its copy alike
    const stored = await platform.stores
      .get('workflow')
      ?.collection<{ _id: string; variables: Record<string, { __nap_sealed?: string }> }>('jobs')
      .findOne({ _id: job._id });
    expect(JSON.stringify(stored)).not.toContain(secret);
    const box = createSecretBox('test-secret-key-of-32-characters');
    const opened = (member: string) => JSON.parse(box.open(String(stored?.variables[member]?.__nap_sealed))) as unknown;
    expect({ api_token: opened('api_token'), copied: opened('copied') }).toEqual({ api_token: secret, copied: secret });
  });
});

describe('schedule triggers', () => {
  it('fires at its first due time, then once per repeat, until disabled', async () => {
    const id = await createAutomation(platform, token, greetWorkflow('every-second'));
    const firstRunAt = Date.now() + 500;
    const trigger = await createTrigger({
      name: 'tick',
      type: 'schedule',
      actionId: id,
      firstRunAt,
      repeatUnit: 'second',
      repeatFrequency: 1,
      processMissedRuns: 'none',
      formData: { who: 'clock' },
    });
    expect(trigger).toMatchObject({ nextRunAt: firstRunAt, repeatInterval: 1000, lastRunAt: null });
    const jobs = await eventually('three scheduled jobs', async () => {
      const found = await jobsOf('every-second');
      return found.length >= 3 && found;
    });
    await platform.http('PATCH', `/operations-manager/triggers/${trigger._id}`, { token, body: { enabled: false } });
    for (const job of jobs) expect((await waitForJob(platform, token, job._id)).variables).toMatchObject({ greeting: 'hello clock' });
    // each job names the schedule and the due time it was started for
    for (const job of jobs) {
      expect(job.trigger).toMatchObject({ _id: trigger._id, name: 'tick', type: 'schedule', automationId: id });
      expect(((job.trigger?.due ?? 0) - firstRunAt) % 1000).toBe(0);
    }
    const starts = jobs.map((j) => Number(j.metrics?.start_time)).sort((a, b) => a - b);
    expect(starts[0]).toBeGreaterThanOrEqual(firstRunAt);
    const stored = (await platform.http('GET', `/operations-manager/triggers/${trigger._id}`, { token })).body as Envelope<Trigger>;
    expect(stored.data.lastRunAt).toBeGreaterThanOrEqual(firstRunAt);
    expect((stored.data.lastRunAt ?? 0) - firstRunAt).toBe((stored.data.nextRunAt ?? 0) - firstRunAt - 1000);
    const count = (await jobsOf('every-second')).length;
    // a schedule due after the disabled one's next due time has fired: the disabled one did not
    await scheduleMarker(platform, token, 'every-second-marker', Math.max(stored.data.nextRunAt ?? 0, Date.now()) + 500);
    expect((await jobsOf('every-second')).length).toBe(count);
  });

  it('fires a single run once', async () => {
    const id = await createAutomation(platform, token, greetWorkflow('once'));
    const trigger = await createTrigger({
      name: 'once',
      type: 'schedule',
      actionId: id,
      firstRunAt: Date.now() + 200,
      formData: { who: 'once' },
    });
    await eventually('the single run', async () => (await jobsOf('once')).length === 1);
    // a schedule due a second later has fired: the single run did not fire again before it
    await scheduleMarker(platform, token, 'once-marker', Date.now() + 1_000);
    expect(await jobsOf('once')).toHaveLength(1);
    expect((await platform.http('GET', `/operations-manager/triggers/${trigger._id}`, { token })).body).toMatchObject({
      data: { nextRunAt: null },
    });
  });
});

describe('eventSystem triggers', () => {
  it('starts an automation when a job of another one completes, with the event as variables', async () => {
    const chained = await createAutomation(
      platform,
      token,
      workflowDocument(
        'chained',
        {
          a1: task(
            'stringConcat',
            { str: 'after ', stringN: '$var.job.name' },
            { combinedStrings: '$var.job.greeting' },
            { type: 'operation' },
          ),
        },
        [
          ['workflow_start', 'a1'],
          ['a1', 'workflow_end'],
        ],
      ),
    );
    await createTrigger({
      name: 'after greet',
      type: 'eventSystem',
      actionId: chained,
      topic: 'jobComplete',
      schema: { type: 'object', properties: { name: { const: 'greet' } }, required: ['name'] },
    });
    const started = await platform.http('POST', '/operations-manager/triggers/endpoint/greet-me', { token, body: { who: 'chain' } });
    const first = (started.body as Envelope<JobDocument>).data._id;
    await waitForJob(platform, token, first);
    const follower = await eventually('the chained job', async () => (await jobsOf('chained')).find((j) => variablesOf(j).jobId === first));
    const done = await waitForJob(platform, token, follower._id);
    expect(done.status).toBe('complete');
    expect(done.variables).toMatchObject({ jobId: first, name: 'greet', status: 'complete', greeting: 'after greet' });
    expect(done.trigger).toMatchObject({ name: 'after greet', type: 'eventSystem', automationId: chained });
    expect(done.trigger).not.toHaveProperty('due');
    // a job of another workflow does not match the schema
    const before = (await jobsOf('chained')).length;
    const other = await platform.http('POST', '/operations-manager/jobs/start', {
      token,
      body: { workflow: 'greet-2', options: { variables: { who: 'x' } } },
    });
    const otherId = (other.body as Envelope<JobDocument>).data._id;
    // a job started without a trigger names none
    expect(await waitForJob(platform, token, otherId)).not.toHaveProperty('trigger');
    // once its jobComplete is on the event stream, a later matching job's follower proves it was handled:
    // the triggers take the stream's events one at a time, in order
    let published = false;
    const stream = await fetch(`${platform.url}/operations-manager/events?workflow=greet-2&event=jobComplete`, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': '0' },
    });
    await readEvents(stream, (frame) => (published = frame.data.jobId === otherId));
    expect(published).toBe(true);
    const marker = await platform.http('POST', '/operations-manager/triggers/endpoint/greet-me', { token, body: { who: 'marker' } });
    const markerId = (marker.body as Envelope<JobDocument>).data._id;
    await eventually('the chained job of the marker', async () => (await jobsOf('chained')).some((j) => variablesOf(j).jobId === markerId));
    expect((await jobsOf('chained')).filter((j) => variablesOf(j).name === 'greet-2')).toHaveLength(0);
    expect((await jobsOf('chained')).length).toBe(before + 1);
  });
});
