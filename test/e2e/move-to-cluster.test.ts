import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { JobDocument } from '@nap/contracts';
import { startCliSimulator } from '@nap/lab';
import type { CliSimulator } from '@nap/lab';
import { startNatsServer, workflowDocument } from '@nap/testing';
import type { NatsServer } from '@nap/testing';
import { jobReaching, waitingTask } from '../support/automation';
import { call, login } from '../support/http';
import { distributedEnv, gatewayUrl, runNapData, startNapProcess, startStandaloneAsDocumented } from '../support/processes';
import type { NapProcess } from '../support/processes';

/**
 * A team outgrows the laptop: the standalone platform (`npm start`) is stopped, its data backed up
 * with `nap-data` and restored for a distributed set (a real nats-server and every service as a
 * process of its own), which goes on where the laptop stopped. People log in with their own
 * passwords, a job that waited for a person finishes on the cluster's engine, a device's sealed
 * password and trusted host key still open a session to it, and the audit trail is one chain
 * across the move.
 */

const ADMIN_PASSWORD = 'laptop-admin-password-1';
const ALICE_PASSWORD = 'alice-password-of-the-laptop';
const DEVICE_USER = 'netops';
const DEVICE_PASSWORD = 'device-pass-laptop-1';

let work: string;
let device: CliSimulator;
let nats: NatsServer | undefined;
const processes: NapProcess[] = [];

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'nap-e2e-move-'));
  device = await startCliSimulator({
    deviceType: 'cisco_ios',
    hostname: 'edge-moved',
    username: DEVICE_USER,
    password: DEVICE_PASSWORD,
    startPrivileged: true,
  });
});

afterAll(async () => {
  for (const p of processes.reverse()) if (p.child.exitCode === null && p.child.signalCode === null) await p.stop();
  await nats?.stop();
  await device?.stop();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

async function runOnDevice(url: string, token: string): Promise<{ status: number; body: unknown }> {
  return call(url, token, 'POST', '/gw/sshSendCommandExec', { host: 'edge-moved', commands: ['show version'] });
}

it('moves a laptop platform to a distributed set that goes on where the laptop stopped', async () => {
  // ── the laptop ──
  const laptop = path.join(work, 'laptop');
  const { nap: standalone, url: laptopUrl } = await startStandaloneAsDocumented(laptop, ADMIN_PASSWORD);
  processes.push(standalone);
  const admin = await login(laptopUrl, 'admin', ADMIN_PASSWORD);
  const group = await call(laptopUrl, admin, 'POST', '/user-management/groups', { group: { name: 'netops', roles: ['operations'] } });
  expect(group.status).toBe(200);
  const groupId = (group.body as { data: { _id: string } }).data._id;
  const account = await call(laptopUrl, admin, 'POST', '/user-management/accounts', {
    account: { username: 'alice', password: ALICE_PASSWORD, groups: [groupId] },
  });
  expect(account.status).toBe(200);
  const created = await call(laptopUrl, admin, 'POST', '/automation-studio/automations', {
    automation: workflowDocument('change-window', { v1: waitingTask() }, [
      ['workflow_start', 'v1'],
      ['v1', 'workflow_end'],
    ]),
  });
  expect(created.status).toBe(200);
  const started = await call(laptopUrl, admin, 'POST', '/workflow_engine/startJobWithOptions/change-window', {
    options: { variables: {} },
  });
  expect(started.status).toBe(200);
  const jobId = (started.body as JobDocument)._id;
  const readJob = async (url: string, token: string) => {
    const res = await call(url, token, 'GET', `/operations-manager/jobs/${jobId}`);
    if (res.status !== 200) throw new Error(`GET job: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { data: JobDocument }).data;
  };
  await jobReaching(
    'the job waiting for a person on the laptop',
    () => readJob(laptopUrl, admin),
    (j) => j.tasks.v1?.status === 'running',
  );
  const added = await call(laptopUrl, admin, 'POST', '/gw/createInventoryDevice', {
    name: 'edge-moved',
    groups: [],
    variables: {
      gw_host: device.host,
      gw_port: device.port,
      gw_network_os: 'cisco_ios',
      gw_user: DEVICE_USER,
      gw_password: DEVICE_PASSWORD,
    },
  });
  expect(added.status).toBe(200);
  // the first session trusts the device's host key (trust on first use); the cluster must know it
  expect((await runOnDevice(laptopUrl, admin)).status).toBe(200);
  const before = (await call(laptopUrl, admin, 'GET', '/audit/verify')).body as { valid: boolean; checked: number };
  expect(before.valid).toBe(true);
  expect(await standalone.stop()).toBe(0);

  // ── the move ──
  const file = path.join(work, 'laptop.ndjson.gz');
  const backedUp = await runNapData(['backup', laptop, file]);
  expect(backedUp).toMatchObject({ code: 0 });
  expect(backedUp.out).toContain('keep');
  const keyFile = path.join(laptop, 'secret.key');
  const cluster = path.join(work, 'cluster');
  const restored = await runNapData(['restore', file, cluster, '--secret-key-file', keyFile]);
  expect(restored).toMatchObject({ code: 0 });
  expect(restored.out).toMatch(/nap_admin\s+\d+ collections\s+\d+ documents/);

  // ── the cluster ──
  nats = await startNatsServer({ jetstream: true });
  const env = distributedEnv(nats.url, cluster, 'not-the-password-any-more', { NAP_SECRET_KEY: readFileSync(keyFile, 'utf8').trim() });
  // each kept as it is ready: when one fails to start, the others are stopped at the end, not left running (jest would wait on them)
  await Promise.all(
    (['admin', 'studio', 'workflow', 'gateway-devices', 'mop', 'orch-proxy'] as const).map(async (s) =>
      processes.push(await startNapProcess(`services/${s}/dist/main.js`, env, new RegExp(`Service ${s} is serving`), 60_000)),
    ),
  );
  const gateway = await startNapProcess('gateway/dist/main.js', env, /Gateway listening/, 60_000);
  processes.push(gateway);
  const url = gatewayUrl(gateway);

  // people log in with the passwords they had; the laptop's admin password still holds
  const alice = await login(url, 'alice', ALICE_PASSWORD);
  expect(await call(url, alice, 'GET', '/whoami')).toMatchObject({ status: 200, body: { username: 'alice' } });
  const clusterAdmin = await login(url, 'admin', ADMIN_PASSWORD);

  // the job that waited on the laptop finishes on the cluster's engine
  const waiting = await readJob(url, clusterAdmin);
  expect(waiting.tasks.v1?.status).toBe('running');
  const finished = await call(url, clusterAdmin, 'POST', `/operations-manager/jobs/${jobId}/tasks/v1/finish`, { variables: {} });
  expect(finished.status).toBe(200);
  const done = await jobReaching(
    'the moved job complete',
    () => readJob(url, clusterAdmin),
    (j) => j.status === 'complete',
  );
  expect(done.name).toBe('change-window');

  // the device's sealed password and trusted host key came along
  const ran = await runOnDevice(url, clusterAdmin);
  expect(ran.status).toBe(200);
  expect(JSON.stringify(ran.body)).toContain('edge-moved');

  // one audit chain across the move: the laptop's records, then the cluster's
  const after = (await call(url, clusterAdmin, 'GET', '/audit/verify')).body as { valid: boolean; checked: number; firstBroken: unknown };
  expect(after).toMatchObject({ valid: true, firstBroken: null });
  expect(after.checked).toBeGreaterThan(before.checked);
  const groupRecords = await call(url, clusterAdmin, 'GET', `/audit?targetId=${groupId}`);
  expect(JSON.stringify(groupRecords.body)).toContain('"username":"admin"');
}, 240_000);
