/**
 * Scenario 1: kill -9 of the standalone process during 300 concurrent writes. Every write answered
 * 2xx is there, whole, after a restart on the same data directory (0 lost); a write that got no
 * answer may be there or not, but whole if it is.
 */
import type { WorkflowDocument } from '@nap/contracts';
import { eventually, task, workflowDocument } from '@nap/testing';
import { figure } from './support/figures';
import type { Client } from './support/platform';
import { Standalone, dataDirectory, progress } from './support/platform';

const SCENARIO = '1 standalone kill -9 under 300 writes';
const WRITES = 300;

/** One kind of write: how to make item `i`, and how to read it back whole (true) or find it absent (false). */
interface WriteKind {
  kind: string;
  write(client: Client, i: number): Promise<{ status: number; id?: string }>;
  /** 'whole' when the item is there as written, 'absent' when it is not there, or what is wrong with it. */
  check(client: Client, i: number, id: string | undefined): Promise<string>;
}

const tag = `w${Date.now().toString(36)}`;

function idOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const data = (body as { data?: { _id?: unknown } }).data;
  const id = data?._id ?? (body as { _id?: unknown })._id;
  return typeof id === 'string' ? id : undefined;
}

/** The items of a list route whose name is exactly `name` (`?equals=&equalsField=name`). */
async function findByName(client: Client, route: string, name: string): Promise<Record<string, unknown>[]> {
  const res = await client.ok<{ results?: Record<string, unknown>[]; items?: Record<string, unknown>[] }>(
    'GET',
    `${route}?equals=${encodeURIComponent(name)}&equalsField=name`,
  );
  return (res.results ?? res.items ?? []).filter((item) => item.name === name);
}

const KINDS: WriteKind[] = [
  {
    kind: 'group (admin)',
    async write(client, i) {
      const res = await client.request('POST', '/user-management/groups', {
        group: { name: `${tag}-group-${i}`, description: `group ${i}` },
      });
      return { status: res.status, id: idOf(res.body) };
    },
    async check(client, i) {
      const items = (await findByName(client, '/user-management/groups', `${tag}-group-${i}`)) as { description?: string }[];
      if (items.length === 0) return 'absent';
      return items.length === 1 && items[0]?.description === `group ${i}` ? 'whole' : `found ${JSON.stringify(items)}`;
    },
  },
  {
    kind: 'workflow (studio)',
    async write(client, i) {
      const res = await client.request('POST', '/automation-studio/automations', { automation: automation(`${tag}-wf-${i}`) });
      return { status: res.status, id: idOf(res.body) };
    },
    async check(client, i) {
      const items = (await findByName(client, '/automation-studio/automations', `${tag}-wf-${i}`)) as { tasks?: Record<string, unknown> }[];
      if (items.length === 0) return 'absent';
      return items.length === 1 && Object.keys(items[0]?.tasks ?? {}).length === 3
        ? 'whole'
        : `found ${JSON.stringify(items).slice(0, 300)}`;
    },
  },
  {
    kind: 'device (gateway-devices)',
    async write(client, i) {
      const res = await client.request('POST', '/gw/createInventoryDevice', {
        name: `${tag}-dev-${i}`,
        variables: { gw_host: '192.0.2.1', gw_os: 'cisco_ios', note: `device ${i}` },
      });
      return { status: res.status };
    },
    async check(client, i) {
      const res = await client.request('POST', '/gw/getInventoryDevice', { name: `${tag}-dev-${i}` });
      if (res.status === 404) return 'absent';
      const variables = (res.body as { variables?: Record<string, unknown> }).variables ?? {};
      return res.status === 200 && variables.note === `device ${i}` && variables.gw_os === 'cisco_ios'
        ? 'whole'
        : `${res.status} ${JSON.stringify(res.body)}`;
    },
  },
  {
    kind: 'command template (mop)',
    async write(client, i) {
      const res = await client.request('POST', '/mop/createTemplate', {
        mop: {
          name: `${tag}-mop-${i}`,
          os: 'cisco_ios',
          passRule: true,
          commands: [{ command: 'show version', passRule: true, rules: [{ rule: `R${i}`, eval: 'contains' }] }],
        },
      });
      return { status: res.status };
    },
    async check(client, i) {
      const res = await client.request('GET', `/mop/listATemplate/${tag}-mop-${i}`);
      const items = Array.isArray(res.body) ? (res.body as { commands?: { rules?: { rule?: string }[] }[] }[]) : [];
      if (res.status === 200 && items.length === 0) return 'absent';
      return res.status === 200 && items.length === 1 && items[0]?.commands?.[0]?.rules?.[0]?.rule === `R${i}`
        ? 'whole'
        : `${res.status} ${JSON.stringify(res.body)}`;
    },
  },
  {
    kind: 'job start (workflow)',
    async write(client, i) {
      const res = await client.request('POST', `/workflow_engine/startJobWithOptions/${tag}-base`, {
        options: { variables: { n: i }, description: `job ${i}` },
      });
      return { status: res.status, id: idOf(res.body) };
    },
    async check(client, _i, id) {
      if (id === undefined) return 'absent';
      const res = await client.request('GET', `/operations-manager/jobs/${id}`);
      if (res.status === 404) return 'absent';
      const job = (res.body as { data?: { variables?: { n?: number }; tasks?: Record<string, unknown> } }).data;
      return res.status === 200 && job?.variables?.n === _i && Object.keys(job.tasks ?? {}).length === 3
        ? 'whole'
        : `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
    },
  },
];

function automation(name: string): WorkflowDocument {
  return workflowDocument(name, { a1: task('newVariable', { name: 'done', value: true }, { value: null }, { type: 'operation' }) }, [
    ['workflow_start', 'a1'],
    ['a1', 'workflow_end'],
  ]);
}

const data = dataDirectory('writes');
let platform: Standalone;

afterAll(async () => {
  await platform?.stop();
  data.remove();
});

it('keeps every write it answered 2xx across a kill -9', async () => {
  platform = await Standalone.start(data.dir);
  const { client } = platform;
  await client.ok('POST', '/automation-studio/automations', { automation: automation(`${tag}-base`) });

  const outcomes: { i: number; kind: WriteKind; status: number; id?: string; error?: string }[] = [];
  let answered = 0;
  let killedAt = 0;
  const killAfter = Math.floor(WRITES / 3);
  const writes = Array.from({ length: WRITES }, async (_, i) => {
    const kind = KINDS[i % KINDS.length] as WriteKind;
    const { status, id } = await kind.write(client, i);
    outcomes.push({ i, kind, status, ...(id !== undefined ? { id } : {}) });
    if (status >= 200 && status < 300) answered += 1;
    if (answered === killAfter && killedAt === 0) {
      killedAt = Date.now();
      await platform.kill();
    }
  });
  await Promise.all(writes);
  if (killedAt === 0) {
    killedAt = Date.now();
    await platform.kill();
  }
  const acknowledged = outcomes.filter((o) => o.status >= 200 && o.status < 300);
  const unanswered = outcomes.filter((o) => o.status === 0);
  const refused = outcomes.filter((o) => o.status !== 0 && (o.status < 200 || o.status >= 300));
  progress(
    `scenario 1: ${acknowledged.length} writes answered 2xx, ${unanswered.length} unanswered, ${refused.length} other answers; restarting`,
  );

  const restartAt = Date.now();
  await platform.launch();
  await eventually('the restarted platform answering', async () => (await client.request('GET', '/whoami')).status === 200, {
    timeoutMs: 60_000,
  });
  const readyMs = Date.now() - restartAt;

  const lost: string[] = [];
  const halfWritten: string[] = [];
  let presentUnanswered = 0;
  for (const o of outcomes) {
    const state = await o.kind.check(client, o.i, o.id);
    const acked = o.status >= 200 && o.status < 300;
    if (state === 'whole') {
      if (!acked) presentUnanswered += 1;
    } else if (state === 'absent') {
      if (acked) lost.push(`${o.kind.kind} #${o.i}`);
    } else {
      halfWritten.push(`${o.kind.kind} #${o.i}: ${state}`);
    }
  }
  // a started job runs to its end after the restart, acknowledged or not
  const jobs = outcomes.filter((o) => o.kind.kind.startsWith('job') && o.id !== undefined);
  for (const o of jobs) {
    await eventually(
      `the end of job ${String(o.id)}`,
      async () => {
        const res = await client.request('GET', `/operations-manager/jobs/${String(o.id)}`);
        const status = (res.body as { data?: { status?: string } }).data?.status;
        return (status === 'complete' || status === 'error' || status === 'canceled') && status;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    ).then((status) => {
      if (status !== 'complete') lost.push(`job ${String(o.id)} ended ${status}`);
    });
  }
  const serverErrors = refused.filter((o) => o.status >= 500);

  figure(SCENARIO, 'writes sent', WRITES);
  figure(SCENARIO, 'answered 2xx before the kill', acknowledged.length);
  figure(SCENARIO, 'unanswered (connection cut by the kill)', unanswered.length);
  figure(SCENARIO, 'unanswered but stored whole', presentUnanswered);
  figure(SCENARIO, 'answered 2xx and lost', lost.length, '', '0');
  figure(SCENARIO, 'half-written', halfWritten.length, '', '0');
  figure(SCENARIO, 'restart to answering', readyMs, 'ms');

  expect(lost).toEqual([]);
  expect(halfWritten).toEqual([]);
  expect(serverErrors.map((o) => `${o.kind.kind} #${o.i}: ${o.status}`)).toEqual([]);
  expect(acknowledged.length).toBeGreaterThan(0);
  expect(platform.process?.crashed()).toBe(false);
});
