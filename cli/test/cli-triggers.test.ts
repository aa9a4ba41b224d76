import { rmSync } from 'node:fs';
import path from 'node:path';
import type { NapHome, NapResult } from './support/nap';
import { createHome, FIXTURES, napInProcess, profileSection } from './support/nap';
import type { Platform } from './support/platform';
import { startPlatform } from './support/platform';

/**
 * `nap get triggers` with their next run and last start, and `nap disable|enable trigger` — the
 * change freeze of an on-call engineer — against a platform started as a black box, the triggers
 * made and read back over HTTP.
 */
let platform: Platform;
let home: NapHome;
let token: string;
let automationId: string;
const ids: Record<string, string> = {};

const run = (args: string[], env: NodeJS.ProcessEnv = home.env): Promise<NapResult> => napInProcess(args, { env });

interface Trigger {
  _id: string;
  name: string;
  type: string;
  enabled: boolean;
  nextRunAt?: number | null;
  lastExecuted?: number | null;
}

async function api(method: string, route: string, body?: unknown, bearer = token): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${platform.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

async function login(username: string, password: string): Promise<string> {
  const res = await fetch(`${platform.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username, password } }),
  });
  expect(res.status).toBe(200);
  return (await res.text()).replace(/^"|"$/g, '');
}

async function createTrigger(trigger: Record<string, unknown>): Promise<Trigger> {
  const res = await api('POST', '/operations-manager/triggers', { actionId: automationId, ...trigger });
  expect(res.status).toBe(200);
  const created = (res.body as { data: Trigger }).data;
  ids[created.name] = created._id;
  return created;
}

async function stored(name: string): Promise<Trigger> {
  const res = await api('GET', `/operations-manager/triggers/${ids[name]!}`);
  expect(res.status).toBe(200);
  return (res.body as { data: Trigger }).data;
}

/** The row of a trigger in `nap get triggers`, its cells split on the table's gaps. */
function row(table: string, name: string): string[] | undefined {
  return table
    .split('\n')
    .find((line) => line.startsWith(`${name}  `))
    ?.split(/ {2,}/);
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** The first due time, a few minutes ahead: the schedule must not fire during the test. */
const firstRunAt = Math.ceil((Date.now() + 10 * 60_000) / 60_000) * 60_000;

beforeAll(async () => {
  platform = await startPlatform('triggers-cli-password');
  home = createHome();
  home.writeNapConfig(profileSection('default', platform.port, platform.password));
  token = await login('admin', platform.password);
  expect((await run(['create', 'workflow', '-f', path.join(FIXTURES, 'cli-complete.workflow.json')])).code).toBe(0);
  const automation = await api('POST', '/operations-manager/automations', {
    automation: { name: 'cli-freeze', componentType: 'workflows', componentName: 'cli-complete' },
  });
  expect(automation.status).toBe(200);
  automationId = (automation.body as { data: { _id: string } }).data._id;
  await createTrigger({ name: 'freeze by hand', type: 'manual', formData: {} });
  await createTrigger({ name: 'freeze hourly', type: 'schedule', firstRunAt, repeatUnit: 'hour', repeatFrequency: 1, formData: {} });
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  if (home !== undefined) rmSync(home.home, { recursive: true, force: true });
});

describe('nap get triggers', () => {
  it("shows a schedule's next run and when each trigger last started a job, within 120 columns", async () => {
    const res = await run(['get', 'triggers']);
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]!.split(/ {2,}/)).toEqual(['NAME', 'TYPE', 'ENABLED', 'NEXT RUN', 'LAST STARTED', 'ID']);
    expect(row(res.stdout, 'freeze hourly')).toEqual(['freeze hourly', 'schedule', 'true', iso(firstRunAt), '-', ids['freeze hourly']]);
    expect(row(res.stdout, 'freeze by hand')).toEqual(['freeze by hand', 'manual', 'true', '-', '-', ids['freeze by hand']]);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(120);

    // a manual run is a start: LAST STARTED says when, in the same format
    const before = Date.now() - 1000;
    const started = await run(['run', 'automation', 'cli-freeze', '--trigger', 'freeze by hand', '--var', 'greeting=hi', '--wait']);
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
    const after = row((await run(['get', 'trigger', 'freeze by hand'])).stdout, 'freeze by hand');
    expect(after?.[4]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(after![4]!)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);

    // -o json stays the documents as the platform answers them
    const json = (await run(['get', 'triggers', '-o', 'json'])).json<Trigger[]>();
    expect(json.find((t) => t.name === 'freeze hourly')).toMatchObject({ enabled: true, nextRunAt: firstRunAt, repeatUnit: 'hour' });
    expect(json.find((t) => t.name === 'freeze by hand')?.lastExecuted).toEqual(expect.any(Number));
  });
});

describe('the jobs of a trigger', () => {
  it('lists the jobs a trigger started, and says on a job which trigger started it', async () => {
    const started = await run([
      'run',
      'automation',
      'cli-freeze',
      '--trigger',
      'freeze by hand',
      '--var',
      'greeting=hi',
      '--wait',
      '-o',
      'json',
    ]);
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
    const jobId = started.json<{ _id: string }>()._id;
    // a job no trigger started is not among them
    const direct = await run(['run', 'workflow', 'cli-complete', '--var', 'greeting=hi', '--wait', '-o', 'json']);
    expect({ code: direct.code, stderr: direct.stderr }).toEqual({ code: 0, stderr: '' });
    const directId = direct.json<{ _id: string }>()._id;

    const listed = (await run(['jobs', 'list', '--trigger', 'freeze by hand', '-o', 'json'])).json<{ _id: string }[]>().map((j) => j._id);
    expect(listed).toContain(jobId);
    expect(listed).not.toContain(directId);
    // by id as well
    expect((await run(['jobs', 'list', '--trigger', ids['freeze by hand']!, '-o', 'json'])).json<unknown[]>()).toHaveLength(listed.length);
    const missing = await run(['jobs', 'list', '--trigger', 'no such trigger']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such trigger/);

    const described = await run(['jobs', 'describe', jobId]);
    expect(described.stdout.split('\n')[1]).toBe(`  started as admin by manual trigger "freeze by hand" (${ids['freeze by hand']!})`);
    expect((await run(['jobs', 'describe', directId])).stdout.split('\n')[1]).toBe('  started by admin');
  });
});

describe('nap disable and nap enable', () => {
  it('pauses a schedule and resumes it, saying its next run; a second disable says it already was', async () => {
    const disabled = await run(['disable', 'trigger', 'freeze hourly']);
    expect({ code: disabled.code, stdout: disabled.stdout, stderr: disabled.stderr }).toEqual({
      code: 0,
      stdout: `trigger "freeze hourly" (${ids['freeze hourly']}) disabled\n`,
      stderr: '',
    });
    expect((await stored('freeze hourly')).enabled).toBe(false);
    // its stored due time is no coming run
    expect(row((await run(['get', 'triggers'])).stdout, 'freeze hourly')?.slice(2, 4)).toEqual(['false', 'disabled']);

    const again = await run(['disable', 'trigger', 'freeze hourly', '--debug']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`trigger "freeze hourly" (${ids['freeze hourly']}) was already disabled\n`);
    expect(again.stderr).not.toMatch(/-X PATCH/); // nothing to change, nothing sent

    const enabled = await run(['enable', 'trigger', ids['freeze hourly']!]);
    expect(enabled.code).toBe(0);
    const next = new RegExp(`^trigger "freeze hourly" \\(${ids['freeze hourly']!}\\) enabled, next run (\\S+)\\n$`).exec(
      enabled.stdout,
    )?.[1];
    expect(next).toBeDefined();
    expect(Date.parse(next!)).toBeGreaterThan(Date.now());
    expect(Date.parse(next!)).toBe((await stored('freeze hourly')).nextRunAt);
    expect((await stored('freeze hourly')).enabled).toBe(true);
    expect((await run(['enable', 'trigger', 'freeze hourly'])).stdout).toBe(
      `trigger "freeze hourly" (${ids['freeze hourly']}) was already enabled, next run ${next!}\n`,
    );

    // -o json: the trigger as the platform answered the change
    const json = await run(['disable', 'triggers', 'freeze by hand', '-o', 'json']);
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({ _id: ids['freeze by hand'], enabled: false });
    expect((await run(['enable', 'trigger', 'freeze by hand'])).stdout).toBe(
      `trigger "freeze by hand" (${ids['freeze by hand']}) enabled\n`,
    );
  });

  it('does every name it can when one is not found, and exits with the not-found code', async () => {
    const res = await run(['disable', 'trigger', 'no such trigger', 'freeze by hand']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe(`trigger "freeze by hand" (${ids['freeze by hand']}) disabled\n`);
    expect(res.stderr).toBe(
      `nap: trigger "no such trigger" not found on ${platform.url}; \`nap get triggers\` lists them\n` +
        'nap: 1 of 2 triggers not disabled\n',
    );
    expect((await stored('freeze by hand')).enabled).toBe(false);
    // one name that is not there: the one line that says so
    const one = await run(['enable', 'trigger', 'no such trigger']);
    expect({ code: one.code, stdout: one.stdout, stderr: one.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `nap: trigger "no such trigger" not found on ${platform.url}; \`nap get triggers\` lists them\n`,
    });
    expect((await run(['enable', 'trigger', 'freeze by hand'])).code).toBe(0);
  });

  it('refuses a name that several triggers carry, listing their ids', async () => {
    const a = await createTrigger({ name: 'freeze twin', type: 'manual', formData: {} });
    const twin = await api('POST', '/operations-manager/triggers', {
      actionId: automationId,
      name: 'freeze twin',
      type: 'manual',
      formData: {},
    });
    const b = (twin.body as { data: Trigger }).data;
    const res = await run(['disable', 'trigger', 'freeze twin']);
    expect({ code: res.code, stdout: res.stdout }).toEqual({ code: 4, stdout: '' });
    const listed = /^nap: 2 triggers are named "freeze twin" \((\w+), (\w+)\): give the id of the one you mean\n$/.exec(res.stderr);
    expect(listed?.slice(1).sort()).toEqual([a._id, b._id].sort());
    expect((await run(['disable', 'trigger', b._id])).code).toBe(0);
    expect((await api('GET', `/operations-manager/triggers/${a._id}`)).body).toMatchObject({ data: { enabled: true } });
  });

  it("says the platform's reason when it refuses to enable a trigger", async () => {
    // an event trigger on a topic that is no event of this platform is imported disabled, and stays so
    const imported = await api('PUT', '/operations-manager/triggers', {
      triggers: [{ name: 'freeze on kafka', type: 'eventSystem', actionId: automationId, topic: 'kafka.orders.created', enabled: true }],
    });
    expect(imported.status).toBe(200);
    const res = await run(['enable', 'trigger', 'freeze on kafka']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /^nap: trigger "freeze on kafka" \(\w+\) not enabled: body\.topic "kafka\.orders\.created" names no event of the platform; events: .*\(400 VALIDATION_FAILED\)\n$/,
    );
    expect((await run(['get', 'trigger', 'freeze on kafka', '-o', 'json'])).json()).toMatchObject({ enabled: false });
  });

  it('is refused to an account whose roles may not change triggers, and says which roles may', async () => {
    const group = await api('POST', '/user-management/groups', { group: { name: 'freeze-operators', roles: ['operations'] } });
    expect(group.status).toBeLessThan(300);
    const groupId = (group.body as { data: { _id: string } }).data._id;
    const account = await api('POST', '/user-management/accounts', {
      account: { username: 'freeze-operator', password: 'freeze-operator-password-1', groups: [groupId] },
    });
    expect(account.status).toBeLessThan(300);
    const operator = createHome();
    try {
      operator.writeNapConfig(
        profileSection('default', platform.port, 'freeze-operator-password-1').replace('username = admin', 'username = freeze-operator'),
      );
      // reading is allowed: the engineer sees the schedules
      expect((await run(['get', 'triggers'], operator.env)).code).toBe(0);
      const res = await run(['disable', 'trigger', 'freeze hourly', 'freeze by hand'], operator.env);
      expect({ code: res.code, stdout: res.stdout }).toEqual({ code: 5, stdout: '' });
      expect(res.stderr).toBe(
        `nap: trigger "freeze hourly" (${ids['freeze hourly']}) not disabled: PATCH /operations-manager/triggers/:id needs one of ` +
          'the roles admin, engineering, apiwrite; the caller has operations (403 FORBIDDEN); the name after it not tried\n',
      );
      expect((await stored('freeze hourly')).enabled).toBe(true);
    } finally {
      rmSync(operator.home, { recursive: true, force: true });
    }
  });

  it('is a usage error for a resource that cannot be enabled or disabled', async () => {
    const res = await run(['enable', 'workflow', 'cli-complete']);
    expect({ code: res.code, stdout: res.stdout, stderr: res.stderr }).toEqual({
      code: 4,
      stdout: '',
      stderr: 'nap: nap enable workflow: workflows cannot be enabled or disabled; what can: triggers, accounts\n',
    });
    expect((await run(['disable', 'gadgets', 'x'])).code).toBe(4);
    // completion offers the verbs, and after them what they take
    const bash = (await run(['completion', 'bash'])).stdout;
    expect(bash).toMatch(/^ {4}"enable"\) words="triggers trigger /m);
    expect(bash).toMatch(/^ {4}""\) words="[^"]*\bdisable enable\b/m);
  });
});
