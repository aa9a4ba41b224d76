#!/usr/bin/env node
/**
 * Makes an upgrade fixture: the data a past release of NAP wrote, through its own HTTP interface,
 * as a `nap-data` backup that `test/e2e/upgrade.test.ts` restores and starts this release on.
 *
 *   git worktree add /tmp/nap-old <commit of the release>
 *   (cd /tmp/nap-old && npm ci && npm run build)
 *   node test/upgrade/make-fixture.mjs /tmp/nap-old test/upgrade/<date>-<commit>
 *
 * It starts the old release's standalone platform on a new data directory, makes what a team has
 * after some weeks (a group and an account, a workflow whose jobs wait for a person, one of them
 * paused, finished jobs
 * and an archive of older ones, a JST and an endpoint trigger that uses it, a schedule, a Jinja2
 * template, a command template, a device with a sealed password, the audit trail of all that),
 * stops it, and backs the data up with this release's `nap-data` (which reads the embedded store
 * as the old release left it). The fixture holds the backup, the data's secret key (made for the
 * fixture only) and `manifest.json`: the release, the passwords and the ids the test goes on from
 * (`null` for what the release did not have yet: job archives, the audit trail).
 */
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { call as callAt } from './http.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const [releaseDir, outDir] = process.argv.slice(2);
if (releaseDir === undefined || outDir === undefined) {
  console.error('usage: node test/upgrade/make-fixture.mjs <built checkout of the release> <fixture directory>');
  process.exit(2);
}

const ADMIN_PASSWORD = 'old-release-admin-password';
const ALICE_PASSWORD = 'alice-of-the-old-release';
const DEVICE_PASSWORD = 'device-password-old-release';

const data = mkdtempSync(path.join(os.tmpdir(), 'nap-upgrade-fixture-'));
const commit = execFileSync('git', ['-C', releaseDir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
const committed = execFileSync('git', ['-C', releaseDir, 'show', '-s', '--format=%cI', 'HEAD'], { encoding: 'utf8' }).trim();

const platform = spawn(process.execPath, [path.join(releaseDir, 'deploy/standalone/dist/main.js')], {
  cwd: releaseDir,
  env: { ...process.env, NAP_PORT: '0', NAP_DATA_DIR: data, NAP_ADMIN_PASSWORD: ADMIN_PASSWORD, NAP_LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
const url = await new Promise((resolve, reject) => {
  platform.stderr.on('data', (chunk) => (output += chunk.toString()));
  platform.stdout.on('data', (chunk) => {
    output += chunk.toString();
    const found = /NAP is listening on (http:\/\/[\d.]+:\d+)/.exec(output);
    if (found) resolve(found[1]);
  });
  platform.on('exit', (code) => reject(new Error(`the old release exited (${code}):\n${output}`)));
});

const call = (token, method, route, body) => callAt(url, token, method, route, body);

async function must(token, method, route, body, status = [200, 201]) {
  const res = await call(token, method, route, body);
  if (!status.includes(res.status)) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Whether the release has a route: an older one answers 404 (or 405, another route's path) for what it did not have yet. */
async function has(token, method, route) {
  const res = await call(token, method, route);
  return res.status !== 404 && res.status !== 405;
}

const dataOf = (body) => (body && typeof body === 'object' && 'data' in body ? body.data : body);

async function until(what, check, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const login = async (username, password) => must(undefined, 'POST', '/login', { user: { username, password } });
const jobOf = async (token, id) => dataOf(await must(token, 'GET', `/operations-manager/jobs/${id}`));

const { workflowDocument } = await import(path.join(repo, 'packages/testing/dist/index.js'));

try {
  const admin = await login('admin', ADMIN_PASSWORD);
  const group = dataOf(await must(admin, 'POST', '/user-management/groups', { group: { name: 'netops', roles: ['operations'] } }));
  const alice = dataOf(
    await must(admin, 'POST', '/user-management/accounts', {
      account: { username: 'alice', password: ALICE_PASSWORD, groups: [group._id] },
    }),
  );

  // a workflow whose job waits for a person, and one that ends by itself
  const waiting = {
    name: 'ViewData',
    app: 'WorkFlowEngine',
    type: 'manual',
    groups: [],
    variables: {
      incoming: {
        header: 'Change CHG-7',
        message: 'Apply the change?',
        body: '',
        variables: '',
        btn_success: 'Apply',
        btn_failure: 'Stop',
      },
      outgoing: {},
    },
  };
  const greet = {
    name: 'stringConcat',
    type: 'operation',
    variables: { incoming: { str: 'hello ', stringN: '$var.job.who' }, outgoing: { combinedStrings: '$var.job.greeting' } },
  };
  await must(admin, 'POST', '/automation-studio/automations', {
    automation: workflowDocument('change-window', { approve: waiting, greet }, [
      ['workflow_start', 'approve'],
      ['approve', 'greet'],
      ['greet', 'workflow_end'],
    ]),
  });
  await must(admin, 'POST', '/automation-studio/automations', {
    automation: workflowDocument(
      'greet',
      { greet },
      [
        ['workflow_start', 'greet'],
        ['greet', 'workflow_end'],
      ],
      { inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] } },
    ),
  });
  const automation = dataOf(
    await must(admin, 'POST', '/operations-manager/automations', {
      automation: { name: 'greet automation', componentType: 'workflows', componentName: 'greet' },
    }),
  );

  const start = async (name, variables) =>
    (await must(admin, 'POST', `/workflow_engine/startJobWithOptions/${name}`, { options: { variables } }))._id;
  const ended = async (id) => until(`job ${id} to end`, async () => ((await jobOf(admin, id)).status === 'complete' ? id : undefined));

  // an older job, archived (where the release archives jobs); then jobs that stay in the live store
  let archivedJob = null;
  let archive = null;
  if (await has(admin, 'GET', '/operations-manager/jobs/archives')) {
    archivedJob = await ended(await start('greet', { who: 'archive' }));
    // just after the job ended: it alone is archived
    const endedAt = (await jobOf(admin, archivedJob)).metrics.end_time;
    archive = dataOf(await must(admin, 'POST', '/operations-manager/jobs/archive', { before: endedAt + 1 }, [200, 202]));
    await until('the archive', async () => {
      const listed = dataOf(await must(admin, 'GET', '/operations-manager/jobs/archives'));
      const found = (Array.isArray(listed) ? listed : (listed.results ?? [])).find((a) => a._id === archive._id);
      if (found?.state === 'failed') throw new Error(`the archive failed: ${JSON.stringify(found)}`);
      return found?.state === 'complete' && found.jobs === 1;
    });
  }
  const completeJob = await ended(await start('greet', { who: 'world' }));
  const waitingJob = await start('change-window', { who: 'change' });
  await until('the job waiting for a person', async () => (await jobOf(admin, waitingJob)).tasks.approve?.status === 'running');
  // and one paused while it waited
  const pausedJob = await start('change-window', { who: 'paused' });
  await until('the job to pause waiting', async () => (await jobOf(admin, pausedJob)).tasks.approve?.status === 'running');
  await must(admin, 'POST', `/operations-manager/jobs/${pausedJob}/pause`);
  await until('the paused job', async () => (await jobOf(admin, pausedJob)).status === 'paused');

  // a JST and the endpoint trigger that transforms its body with it; a schedule due next year
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
      { id: 3, type: 'assign', from: { location: 'method', name: 1, ptr: '/return' }, to: { location: 'outgoing', name: 'who', ptr: '' } },
    ],
    functions: [],
  };
  const jst = await must(admin, 'POST', '/transformations', shout);
  const trigger = dataOf(
    await must(admin, 'POST', '/operations-manager/triggers', {
      name: 'greet loudly',
      type: 'endpoint',
      actionId: automation._id,
      routeName: 'greet-loudly',
      jst: jst._id,
      schema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
    }),
  );
  const schedule = dataOf(
    await must(admin, 'POST', '/operations-manager/triggers', {
      name: 'yearly greeting',
      type: 'schedule',
      actionId: automation._id,
      firstRunAt: Date.parse('2099-01-01T00:00:00Z'),
      processMissedRuns: 'none',
      repeatUnit: 'month',
      repeatFrequency: 12,
      formData: { who: 'new year' },
    }),
  );

  // templates: a Jinja2 template and a command template
  await must(admin, 'POST', '/automation-studio/templates', {
    template: {
      name: 'interface',
      type: 'jinja2',
      template: 'interface {{ name }}\n description {{ description }}',
      data: '{"name": "Gi0/1", "description": "uplink"}',
      group: 'IOS',
      description: 'an interface',
    },
  });
  await must(admin, 'POST', '/mop/createTemplate', {
    mop: {
      name: 'version-check',
      os: 'cisco_ios',
      passRule: true,
      commands: [{ command: 'show version', passRule: true, rules: [{ rule: 'Version', eval: 'contains', severity: 'error' }] }],
    },
  });

  // a device whose password is sealed with the data's key (its address is the test's to set)
  await must(admin, 'POST', '/gw/createInventoryDevice', {
    name: 'edge-old',
    groups: [],
    variables: { gw_host: '127.0.0.1', gw_port: 1, gw_network_os: 'cisco_ios', gw_user: 'netops', gw_password: DEVICE_PASSWORD },
  });

  // alice signs in once (her sign-in is in the audit trail, where the release keeps one), then the trail is checked
  await login('alice', ALICE_PASSWORD);
  let verified = null;
  if (await has(admin, 'GET', '/audit/verify')) {
    verified = await until('the audit trail of every change', async () => {
      const answer = await must(admin, 'GET', '/audit/verify');
      return answer.valid === true && answer.checked > 0 ? answer : undefined;
    });
  }

  platform.kill('SIGTERM');
  const [code] = await once(platform, 'exit');
  if (code !== 0) throw new Error(`the old release stopped with exit code ${code}`);

  mkdirSync(outDir, { recursive: true });
  const backup = path.join(outDir, 'backup.ndjson.gz');
  rmSync(backup, { force: true });
  execFileSync(process.execPath, [path.join(repo, 'deploy/standalone/bin/nap-data.js'), 'backup', data, backup], { stdio: 'inherit' });
  writeFileSync(path.join(outDir, 'secret.key'), readFileSync(path.join(data, 'secret.key')));
  const manifest = {
    release: { commit, committed },
    made: new Date().toISOString(),
    passwords: { admin: ADMIN_PASSWORD, alice: ALICE_PASSWORD, device: DEVICE_PASSWORD },
    accounts: { alice: alice._id },
    groups: { netops: group._id },
    jobs: { waiting: waitingJob, paused: pausedJob, complete: completeJob, archived: archivedJob },
    archive: archive?._id ?? null,
    triggers: { endpoint: trigger._id, schedule: schedule._id },
    jst: jst._id,
    device: 'edge-old',
    audit: verified === null ? null : { checked: verified.checked },
  };
  writeFileSync(path.join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`Wrote ${outDir}: the data of ${commit.slice(0, 7)} (${committed})`);
} finally {
  if (platform.exitCode === null) platform.kill('SIGKILL');
  rmSync(data, { recursive: true, force: true });
}
