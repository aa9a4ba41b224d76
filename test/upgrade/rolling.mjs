#!/usr/bin/env node
/**
 * A rolling upgrade of a distributed set, from a past release to this checkout: a real nats-server,
 * the six services and a gateway of the old release, then each service in turn replaced by this
 * release's, the gateway last, with a check of what people do between each step (sign in, start a
 * job and see it end, start one that waits for a person, read job pages, create a group, verify the
 * audit chain where the gateway has the route). Every job that waited is finished at the end.
 *
 *   git worktree add /tmp/nap-old <commit of the release>
 *   (cd /tmp/nap-old && npm ci && npm run build)
 *   npm run build && node test/upgrade/rolling.mjs /tmp/nap-old [--overlap]
 *
 * By default each old process stops before its new one starts, as on embedded stores (one process
 * per store). `--overlap` starts the new replica first and checks with both up, as a Kubernetes
 * rolling update runs them on MongoDB; here both share the embedded store, which is only meaningful
 * between releases of the same store format (`packages/store/src/internal/embedded/store-format.ts`).
 * Not part of `npm test`: it needs a build of the old release. Logs go to a directory it prints.
 * Exit code 0 when every check held.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { call as callAt } from './http.mjs';

const NEW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OLD = process.argv[2] && path.resolve(process.argv[2]);
const overlap = process.argv.includes('--overlap');
if (!OLD) {
  console.error('usage: node test/upgrade/rolling.mjs <built checkout of the old release> [--overlap]');
  process.exit(2);
}
const SERVICES = ['admin', 'studio', 'workflow', 'gateway-devices', 'mop', 'orch-proxy'];
const PASSWORD = 'rolling-admin-password';

const data = mkdtempSync(path.join(os.tmpdir(), 'nap-rolling-data-'));
const jetstream = mkdtempSync(path.join(os.tmpdir(), 'nap-rolling-js-'));
const logs = mkdtempSync(path.join(os.tmpdir(), 'nap-rolling-logs-'));
const natsPort = 20000 + Math.floor(Math.random() * 20000);
const nats = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', jetstream], { stdio: 'ignore' });
const env = {
  ...process.env,
  NAP_NATS_URL: `nats://127.0.0.1:${natsPort}`,
  NAP_DATA_DIR: data,
  NAP_ADMIN_PASSWORD: PASSWORD,
  NAP_SECRET_KEY: 'rolling-secret-key-of-32-characters',
  NAP_LOG_LEVEL: 'info',
  NAP_PORT: '0',
};
const children = [];

/** Starts an entry of a checkout; resolves once its output matches `ready`. */
function start(root, entry, ready) {
  const release = root === NEW ? 'new' : 'old';
  const log = path.join(logs, `${release}-${entry.replace(/\W+/g, '_')}-${Date.now()}.log`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, entry)], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    const seen = (chunk) => {
      out += chunk.toString();
      appendFileSync(log, chunk);
      if (ready.test(out)) resolve({ child, output: () => out, name: `${release} ${entry}` });
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', (code) => reject(new Error(`${release} ${entry} exited (${code}); see ${log}`)));
  });
}

async function stop(proc) {
  proc.child.removeAllListeners('exit');
  const exited = new Promise((r) => proc.child.once('exit', r));
  proc.child.kill('SIGTERM');
  await exited;
}

const service = (root, name) => start(root, `services/${name}/dist/main.js`, new RegExp(`Service ${name} is serving`));
const gateway = (root) => start(root, 'gateway/dist/main.js', /Gateway listening/);
const urlOf = (proc) => /"url":"(https?:\/\/[^"]+)"/.exec(proc.output())[1];

let url;
const call = (token, method, route, body) => callAt(url, token, method, route, body);

const { workflowDocument } = await import(path.join(NEW, 'packages/testing/dist/index.js'));
const greet = {
  name: 'stringConcat',
  type: 'operation',
  variables: { incoming: { str: 'hello ', stringN: '$var.job.who' }, outgoing: { combinedStrings: '$var.job.greeting' } },
};
const approve = {
  name: 'ViewData',
  app: 'WorkFlowEngine',
  type: 'manual',
  groups: [],
  variables: {
    incoming: { header: 'Change', message: 'Go on?', body: '', variables: '', btn_success: 'Yes', btn_failure: 'No' },
    outgoing: {},
  },
};

const waiting = [];
let failures = 0;

async function jobEnding(token, id) {
  for (let i = 0; i < 150; i++) {
    const job = (await call(token, 'GET', `/operations-manager/jobs/${id}`)).body?.data;
    if (job && job.status !== 'running') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { status: 'still running' };
}

/** What people do, through the gateway; answers the problems seen. */
async function check(step) {
  const problems = [];
  const expect = (what, ok, detail) => {
    if (!ok) problems.push(`${what}: ${JSON.stringify(detail).slice(0, 400)}`);
  };
  try {
    const login = await call(undefined, 'POST', '/login', { user: { username: 'admin', password: PASSWORD } });
    expect('sign in', login.status === 200, login);
    const token = login.body;
    const started = await call(token, 'POST', '/workflow_engine/startJobWithOptions/greet', { options: { variables: { who: step } } });
    expect('start a job', started.status === 200, started);
    if (started.status === 200) {
      const job = await jobEnding(token, started.body._id);
      expect('the job complete', job.status === 'complete' && job.variables?.greeting === `hello ${step}`, job);
    }
    const wait = await call(token, 'POST', '/workflow_engine/startJobWithOptions/wait', { options: { variables: { who: step } } });
    expect('start a job that waits', wait.status === 200, wait);
    if (wait.status === 200) waiting.push(wait.body._id);
    for (let i = 0; i < 10; i++) {
      const page = await call(token, 'GET', '/operations-manager/jobs?limit=5&equals[status]=running');
      expect('a job page', page.status === 200, page);
      const one = await call(token, 'GET', `/operations-manager/jobs/${waiting[waiting.length - 1]}`);
      expect('a job', one.status === 200, one);
    }
    const group = await call(token, 'POST', '/user-management/groups', { group: { name: `group ${step}`, roles: [] } });
    // an older release answers a creation 201, this one 200 (as Itential's platform answers it)
    expect('create a group', group.status === 200 || group.status === 201, group);
    const verify = await call(token, 'GET', '/audit/verify');
    if (verify.status !== 404) expect('the audit chain', verify.body?.valid === true, verify);
  } catch (err) {
    problems.push(String(err));
  }
  const unique = [...new Set(problems)];
  failures += unique.length;
  console.log(`${step.padEnd(28)} ${unique.length === 0 ? 'ok' : unique.join('\n' + ' '.repeat(29))}`);
}

try {
  const running = {};
  for (const name of SERVICES) running[name] = await service(OLD, name);
  let gw = await gateway(OLD);
  url = urlOf(gw);
  const admin = (await call(undefined, 'POST', '/login', { user: { username: 'admin', password: PASSWORD } })).body;
  for (const automation of [
    workflowDocument('greet', { greet }, [
      ['workflow_start', 'greet'],
      ['greet', 'workflow_end'],
    ]),
    workflowDocument('wait', { approve, greet }, [
      ['workflow_start', 'approve'],
      ['approve', 'greet'],
      ['greet', 'workflow_end'],
    ]),
  ]) {
    const created = await call(admin, 'POST', '/automation-studio/automations', { automation });
    if (created.status !== 200 && created.status !== 201) throw new Error(`creating ${automation.name}: ${JSON.stringify(created)}`);
  }
  console.log(
    `${OLD} → ${NEW}, ${overlap ? 'new replica up before the old one stops' : 'each old process stopped first'}; logs in ${logs}`,
  );
  await check('all old');
  for (const name of SERVICES) {
    if (overlap) {
      const fresh = await service(NEW, name);
      await check(`${name} old and new`);
      await stop(running[name]);
      running[name] = fresh;
    } else {
      await stop(running[name]);
      running[name] = await service(NEW, name);
    }
    await check(`${name} new`);
  }
  const newGateway = await gateway(NEW);
  await stop(gw);
  gw = newGateway;
  url = urlOf(gw);
  await check('all new');
  const token = (await call(undefined, 'POST', '/login', { user: { username: 'admin', password: PASSWORD } })).body;
  let finished = 0;
  for (const id of waiting) {
    await call(token, 'POST', `/operations-manager/jobs/${id}/tasks/approve/finish`, { variables: {} });
    if ((await jobEnding(token, id)).status === 'complete') finished++;
    else failures++;
  }
  console.log(`jobs that waited, finished on the new release: ${finished} of ${waiting.length}`);
  for (const proc of [...Object.values(running), gw]) await stop(proc);
} finally {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  nats.kill();
  rmSync(data, { recursive: true, force: true });
  rmSync(jetstream, { recursive: true, force: true });
}
process.exitCode = failures === 0 ? 0 : 1;
