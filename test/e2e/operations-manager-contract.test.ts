import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createAutomation, greetWorkflow, waitForJob } from '../support/automation';

/**
 * Contract points of the operations manager's routes: the job page's nextPageSkip and
 * previousPageSkip are integers (left out where there is no such page); the operators of the job
 * query name their field in brackets, and a plain value (whose field the spec does not give) is
 * refused naming the member; the trigger and automation lists refuse query members they do not
 * support; schedule times are bounded and their errors say what is wrong; getJobList names a bad
 * status; the catalog import refuses a repeatInterval that is not a count and a unit.
 */

let platform: TestPlatform;
let token: string;
let actionId: string;

type Page = { items: { _id: string }[]; total: number; skip: number; nextPageSkip?: unknown; previousPageSkip?: unknown };

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  actionId = await createAutomation(platform, token, greetWorkflow('contract-greet'));
  for (let i = 0; i < 3; i += 1) {
    const res = await platform.http('POST', '/operations-manager/jobs/start', {
      token,
      body: { workflow: 'contract-greet', options: { variables: { who: `n${i}` } } },
    });
    await waitForJob(platform, token, (res.body as { data: { _id: string } }).data._id);
  }
}, 60_000);

afterAll(async () => {
  await platform.stop();
});

async function jobPage(query: string): Promise<Page> {
  const res = await platform.http('GET', `/operations-manager/jobs?equals[name]=contract-greet&${query}`, { token });
  expect(res.status).toBe(200);
  return res.body as Page;
}

it('answers nextPageSkip and previousPageSkip as integers, and leaves them out where there is no such page', async () => {
  const first = await jobPage('limit=1');
  expect(first.nextPageSkip).toBe(1);
  expect(first).not.toHaveProperty('previousPageSkip');
  const middle = await jobPage('limit=1&skip=1');
  expect(middle).toMatchObject({ nextPageSkip: 2, previousPageSkip: 0 });
  const last = await jobPage('limit=1&skip=2');
  expect(last.previousPageSkip).toBe(1);
  expect(last).not.toHaveProperty('nextPageSkip');
  const all = await jobPage('limit=10');
  expect(all).not.toHaveProperty('nextPageSkip');
  expect(all).not.toHaveProperty('previousPageSkip');
  for (const page of [first, middle, last, all])
    for (const member of ['nextPageSkip', 'previousPageSkip'] as const)
      if (member in page) expect(Number.isInteger(page[member])).toBe(true);
});

it('refuses an operator of the job query given as a plain value, naming the member; the bracketed form filters', async () => {
  const plain = await platform.http('GET', '/operations-manager/jobs?equals=complete', { token });
  expect(plain.status).toBe(400);
  expect(plain.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'query.equals' }] });
  expect((await jobPage('in[status]=complete,error')).total).toBe(3);
});

it('refuses query members the trigger and automation lists do not support, naming them', async () => {
  for (const route of ['/operations-manager/automations', '/operations-manager/triggers']) {
    for (const [query, member] of [
      ['bogus[name]=x', 'query.bogus'],
      ['in[name]=a,b', 'query.in'],
      ['gt[name]=zzz', 'query.gt'],
    ]) {
      const res = await platform.http('GET', `${route}?${query}`, { token });
      expect({ route, query, status: res.status, body: res.body }).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_FAILED', details: [{ member }] },
      });
    }
    expect((await platform.http('GET', `${route}?equals[name]=x`, { token })).status).toBe(200);
  }
});

it('bounds the times of a schedule and says what is wrong with a given value', async () => {
  const schedule = (extra: Record<string, unknown>) =>
    platform.http('POST', '/operations-manager/triggers', {
      token,
      body: { trigger: { name: 'contract-schedule', type: 'schedule', actionId, repeatUnit: 'day', repeatFrequency: 1, ...extra } },
    });
  const negative = await schedule({ firstRunAt: -1 });
  expect(negative.status).toBe(400);
  expect(negative.body).toMatchObject({ details: [{ member: 'body.trigger.firstRunAt' }] });
  expect((negative.body as { message: string }).message).not.toContain('is required');
  expect((negative.body as { message: string }).message).toContain('-1');
  const far = await schedule({ firstRunAt: 1e20 });
  expect(far.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.trigger.firstRunAt' }] });
  const often = await schedule({ firstRunAt: Date.now() + 3_600_000, repeatFrequency: 1e20 });
  expect(often.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.trigger.repeatFrequency' }] });
  const missing = await schedule({});
  expect((missing.body as { message: string }).message).toContain('is required');
});

it('names a bad status of getJobList in details', async () => {
  const res = await platform.http('POST', '/workflow_engine/getJobList/bogus', { token, body: { options: {} } });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'params.status' }] });
});

it('refuses a catalog automation whose repeatInterval is not a count and a unit, naming it', async () => {
  const res = await platform.http('POST', '/automation_catalog/automations/import', {
    token,
    body: {
      automations: [
        { name: 'contract-banana', repeatInterval: 'banana' },
        { name: 'contract-weekly', repeatInterval: '2 weeks' },
      ],
      options: {},
    },
  });
  expect(res.status).toBe(200);
  const items = (res.body as { imported: { success: boolean; message: string }[] }).imported;
  expect(items.map((i) => i.success)).toEqual([false, true]);
  expect(items[0]?.message).toContain('repeatInterval');
});
