import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * `skip` of the workflow lists is bounded by the largest exact integer: at the bound a list answers
 * an empty page (not the store's error), past it 400 VALIDATION_FAILED naming query.skip.
 */
let platform: TestPlatform;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
}, 60_000);

afterAll(async () => {
  await platform?.stop();
});

const LISTS = [
  '/operations-manager/jobs',
  '/operations-manager/tasks',
  '/operations-manager/jobs/archives',
  '/operations-manager/automations',
  '/operations-manager/triggers',
  '/workflow_engine/jobs/metrics',
  '/workflow_engine/tasks/metrics',
];

it.each(LISTS)('%s answers an empty page at the largest skip and refuses a larger one', async (route) => {
  const at = await platform.http('GET', `${route}?skip=${Number.MAX_SAFE_INTEGER}`, { token: admin });
  expect({ route, status: at.status }).toEqual({ route, status: 200 });
  // the page's list, whatever the route calls it: nothing is that far in
  const body = at.body as { items?: unknown[]; results?: unknown[]; data?: unknown[] };
  expect(body.items ?? body.results ?? body.data).toEqual([]);
  for (const skip of ['9007199254740992', '1e20']) {
    const past = await platform.http('GET', `${route}?skip=${skip}`, { token: admin });
    expect(past).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ member: 'query.skip' }] } });
  }
});
