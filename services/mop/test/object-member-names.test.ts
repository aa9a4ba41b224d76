import type { JobDocument } from '@nap/contracts';
import { startCliSimulator } from '@nap/lab';
import type { CliSimulator } from '@nap/lab';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';
import { addSimulator } from './lab-devices';

/**
 * Names users choose that Object.prototype also has (`constructor`, `toString`, `__proto__`): template
 * variables, members of a template, of a kept run and of a manual task's incoming variables, and task
 * ids. Each is an ordinary name: found when given, missing when not, never dropped, never Object's.
 */

let platform: TestPlatform;
let token: string;
let sim: CliSimulator;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  sim = await startCliSimulator({ deviceType: 'cisco_ios', hostname: 'protoios1', startPrivileged: true });
  await addSimulator(platform, token, 'proto-ios-1', sim);
}, 60_000);

afterAll(async () => {
  await sim?.stop();
  await platform?.stop();
});

afterEach(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

/** An object whose own members are `json`'s, `__proto__` included (an object literal would set the prototype instead). */
function own(json: string): Record<string, unknown> {
  return JSON.parse(json) as Record<string, unknown>;
}

/** The own member `key` of `value` (`__proto__` included), or undefined. */
function member(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Object.getOwnPropertyDescriptor(value, key)?.value : undefined;
}

const http = (method: string, route: string, body?: unknown) =>
  platform.http(method, route, { token, ...(body !== undefined ? { body } : {}) });

describe('template variables named after members of Object.prototype', () => {
  it('RunCommand: <!constructor!> and <!toString!> without a value are missing (422 naming them), with a value they are used', async () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      const missing = await http('POST', '/mop/RunCommand', { command: `show <!${name}!>`, device: 'proto-ios-1' });
      expect({ name, status: missing.status, body: missing.body }).toMatchObject({
        name,
        status: 422,
        body: { code: 'MOP_VARIABLE_MISSING', message: expect.stringContaining(`"${name}"`) },
      });
      const given = await http('POST', '/mop/RunCommand', {
        command: `show <!${name}!>`,
        device: 'proto-ios-1',
        variables: own(`{"${name}": "version"}`),
      });
      expect({ name, status: given.status }).toEqual({ name, status: 200 });
      expect(given.body).toMatchObject({ evaluated: 'show version', response: expect.stringContaining('Cisco IOS Software') });
      const parameters = (given.body as { parameters: Record<string, unknown> }).parameters;
      expect({ name, keys: Object.keys(parameters), value: member(parameters, name) }).toEqual({ name, keys: [name], value: 'version' });
    }
  });

  it('RunCommandTemplate: a skipped command keeps __proto__ among the parameters it had, and the kept run keeps it among its variables', async () => {
    const template = {
      name: 'proto-vars',
      commands: [
        { command: 'show <!__proto__!> <!absent!>', rules: [] },
        { command: 'show <!__proto__!>', rules: [] },
      ],
    };
    expect((await http('POST', '/mop/createTemplate', { mop: template })).status).toBe(200);
    const res = await http('POST', '/mop/RunCommandTemplate', {
      template: 'proto-vars',
      devices: ['proto-ios-1'],
      variables: own('{"__proto__": "version", "constructor": "c"}'),
    });
    expect(res.status).toBe(200);
    const body = res.body as { runId: string; commands_results: { skipped?: boolean; evaluated: string; parameters: unknown }[] };
    const [skipped, ran] = body.commands_results;
    expect(skipped).toMatchObject({ skipped: true, evaluated: 'show <!__proto__!> <!absent!>' });
    expect(member(skipped?.parameters, '__proto__')).toBe('version');
    expect(ran).toMatchObject({ evaluated: 'show version' });
    expect(member(ran?.parameters, '__proto__')).toBe('version');

    const kept = await http('GET', `/mop/runs/${body.runId}`);
    expect(kept.status).toBe(200);
    const variables = (kept.body as { variables: Record<string, unknown> }).variables;
    expect(Object.getPrototypeOf(variables)).toBe(Object.prototype);
    expect(Object.keys(variables).sort()).toEqual(['__proto__', 'constructor']);
    expect(member(variables, '__proto__')).toBe('version');
    const results = (kept.body as { output: { commands_results: { parameters: unknown }[] } }).output.commands_results;
    expect(results.map((r) => member(r.parameters, '__proto__'))).toEqual(['version', 'version']);
  });
});

describe('members of a template named after members of Object.prototype', () => {
  it('a template member named __proto__ or constructor is stored and answered as given', async () => {
    const mop = own(
      '{"name": "proto-members", "__proto__": {"polluted": "yes"}, "constructor": "c", "commands": [{"command": "show clock", "rules": []}]}',
    );
    const created = await http('POST', '/mop/createTemplate', { mop });
    expect(created.status).toBe(200);
    const data = (created.body as { data: Record<string, unknown> }).data;
    expect(member(data, '__proto__')).toEqual({ polluted: 'yes' });
    expect(data.constructor).toBe('c');
    const listed = await http('GET', '/mop/listATemplate/proto-members');
    expect(listed.status).toBe(200);
    const [stored] = listed.body as Record<string, unknown>[];
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(member(stored, '__proto__')).toEqual({ polluted: 'yes' });
    expect(stored?.constructor).toBe('c');
  });
});

describe('manual tasks', () => {
  it('shows incoming variables named __proto__ and constructor, and a task id named after an Object member is no task', async () => {
    const incoming = own('{"__proto__": "a\\nb\\n", "constructor": "$var.job.after"}');
    const workflow = workflowDocument(
      'proto-manual',
      { view1: task('diffConfig', incoming, {}, { app: 'MOP', type: 'manual', summary: 'Compare', view: '/mop/task/diffConfig' }) },
      [
        ['workflow_start', 'view1'],
        ['view1', 'workflow_end'],
      ],
    );
    const stored = await http('POST', '/automation-studio/automations', { automation: workflow });
    expect(stored.status).toBe(200);
    const started = await http('POST', '/workflow_engine/startJobWithOptions/proto-manual', {
      options: { description: 'proto names', type: 'automation', variables: { after: 'a\nc\n' } },
    });
    expect(started.status).toBe(200);
    const jobId = (started.body as JobDocument)._id;
    await eventually(
      'the manual task to wait',
      async () => {
        const job = (await http('GET', `/operations-manager/jobs/${jobId}`)).body as { data: JobDocument };
        return job.data.tasks.view1?.status === 'running';
      },
      { timeoutMs: 20_000 },
    );

    const shown = await http('GET', `/mop/task/diffConfig?jobId=${jobId}&taskId=view1`);
    expect(shown.status).toBe(200);
    const view = (shown.body as { view: { incoming: Record<string, unknown>; added: number; removed: number } }).view;
    expect(Object.keys(view.incoming)).toEqual(['__proto__', 'constructor']);
    expect(member(view.incoming, '__proto__')).toBe('a\nb\n');
    expect(view.incoming.constructor).toBe('a\nc\n');
    expect({ added: view.added, removed: view.removed }).toEqual({ added: 1, removed: 1 });

    for (const taskId of ['constructor', '__proto__', 'toString']) {
      const res = await http('GET', `/mop/task/diffConfig?jobId=${jobId}&taskId=${taskId}`);
      expect({ taskId, status: res.status, body: res.body }).toMatchObject({
        taskId,
        status: 404,
        body: { code: 'TASK_NOT_FOUND', message: expect.stringContaining(`"${taskId}"`) },
      });
    }
  }, 30_000);
});
