#!/usr/bin/env node
// Sign-in benchmark (built dist/ code; `npm run build` first): what a directory sign-in costs next
// to a local one, with OpenLDAP's slapd (Debian slapd, ldap-utils) run here on a free port.
//  1. Baseline measured in the same run: POST /login of the local admin (scrypt hash check).
//  2. POST /login of a directory user: connect, StartTLS-less service bind, search, user bind,
//     memberOf, account and groups brought up to date, session.
//  3. GET /whoami with Basic of a directory user whose credentials the gateway does not remember
//     (a new password each round: every request goes to the directory).
//  4. The re-check of an open directory session (admin.resolveSession once the interval passed).
// Prints the median and p95 of each, in ms, and their ratio to the baseline.
// Usage: node test/bench/sign-in.mjs [--smoke]   (--smoke: 3 rounds; proves the bench runs, timings mean nothing)
// Needs slapd and ldapadd (Debian slapd, ldap-utils): a skip without them, a failure under CI=true.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { report, size, skip, SMOKE } from './report.mjs';

const require = createRequire(import.meta.url);
const { startPlatform } = require('../../deploy/standalone/dist/index.js');
const { loadConfig, createClient } = require('../../packages/runtime/dist/index.js');
const { SYSTEM_CALLER, peekToken } = require('../../contracts/dist/index.js');

const ROUNDS = size(Number(process.env.NAP_BENCH_ROUNDS ?? 60), 3);
const PASSWORD = 'bench-admin-password';
const SUFFIX = 'dc=nap,dc=bench';
const ROOT_DN = `cn=admin,${SUFFIX}`;
const SERVICE_DN = `cn=nap-service,ou=services,${SUFFIX}`;
const USERS = ROUNDS + 2;
const SLAPD = '/usr/sbin/slapd';
const NEEDED = [
  SLAPD,
  ...['core', 'cosine', 'inetorgperson'].map((schema) => `/etc/ldap/schema/${schema}.schema`),
  ...['back_mdb', 'memberof'].map((module) => `/usr/lib/ldap/${module}.la`),
];

const absent = NEEDED.filter((file) => !existsSync(file));
if (absent.length > 0) skip(`OpenLDAP's slapd is not installed here (${absent.join(', ')} absent; Debian package slapd)`);
if (spawnSync('ldapadd', ['-VV']).error) skip('ldapadd is not on the PATH (Debian package ldap-utils)');

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
const canConnect = (port) =>
  new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-bench-sign-in-'));
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-bench-sign-in-data-'));
let slapd;
let platform;
try {
  await run();
} finally {
  // on an error as well: no slapd left running, no data left behind
  await platform?.stop();
  if (slapd && slapd.exitCode === null && slapd.signalCode === null) {
    const exited = new Promise((r) => slapd.once('exit', r));
    slapd.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}

async function run() {
  mkdirSync(path.join(dir, 'db'));
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'slapd.conf'),
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      'moduleload memberof',
      `pidfile ${dir}/slapd.pid`,
      'database mdb',
      'maxsize 16777216',
      `suffix "${SUFFIX}"`,
      `rootdn "${ROOT_DN}"`,
      'rootpw root-secret',
      `directory ${dir}/db`,
      'overlay memberof',
      '',
    ].join('\n'),
  );
  slapd = spawn(SLAPD, ['-d', '0', '-h', `ldap://127.0.0.1:${port}/`, '-f', path.join(dir, 'slapd.conf')], { stdio: 'ignore' });
  for (let i = 0; !(await canConnect(port)); i += 1) {
    if (slapd.exitCode !== null || slapd.signalCode !== null)
      throw new Error(`slapd ended (${slapd.exitCode ?? slapd.signalCode}) before it listened on ${port}`);
    if (i > 300) throw new Error('slapd did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const entries = [
    `dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\ndc: nap\no: bench`,
    `dn: ou=people,${SUFFIX}\nobjectClass: organizationalUnit\nou: people`,
    `dn: ou=groups,${SUFFIX}\nobjectClass: organizationalUnit\nou: groups`,
    `dn: ou=services,${SUFFIX}\nobjectClass: organizationalUnit\nou: services`,
    `dn: ${SERVICE_DN}\nobjectClass: simpleSecurityObject\nobjectClass: organizationalRole\ncn: nap-service\nuserPassword: service-secret`,
    ...Array.from(
      { length: USERS },
      (_, i) =>
        `dn: uid=user${i},ou=people,${SUFFIX}\nobjectClass: inetOrgPerson\nuid: user${i}\ncn: user${i}\nsn: user${i}\nuserPassword: pass-${i}`,
    ),
    `dn: cn=netops,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: netops\n${Array.from({ length: USERS }, (_, i) => `member: uid=user${i},ou=people,${SUFFIX}`).join('\n')}`,
    `dn: cn=nap-operators,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: nap-operators\n${Array.from({ length: USERS }, (_, i) => `member: uid=user${i},ou=people,${SUFFIX}`).join('\n')}`,
  ];
  execFileSync('ldapadd', ['-x', '-H', `ldap://127.0.0.1:${port}`, '-D', ROOT_DN, '-w', 'root-secret'], {
    input: entries.join('\n\n') + '\n',
    stdio: ['pipe', 'ignore', 'inherit'],
  });

  const config = {
    ...loadConfig({ NAP_DATA_DIR: dataDir, NAP_PORT: '0', NAP_ADMIN_PASSWORD: PASSWORD }),
    logLevel: 'warn',
    ldap: {
      type: 'ldap',
      url: `ldap://127.0.0.1:${port}`,
      bindDN: SERVICE_DN,
      bindPassword: 'service-secret',
      userBase: `ou=people,${SUFFIX}`,
    },
  };
  platform = await startPlatform({ config });
  const bus = createClient(platform.bus);

  const post = (username, password) =>
    fetch(`${platform.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
  async function timed(fn) {
    const started = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - started) / 1e6;
  }
  async function measure(name, fn) {
    await fn(0); // warm-up
    const times = [];
    for (let i = 1; i <= ROUNDS; i += 1) times.push(await timed(() => fn(i)));
    times.sort((a, b) => a - b);
    return { name, median: times[Math.floor(times.length / 2)], p95: times[Math.min(times.length - 1, Math.floor(times.length * 0.95))] };
  }
  const ok = async (res) => {
    if (res.status !== 200) throw new Error(`answered ${res.status}: ${await res.text()}`);
    return res;
  };

  const rows = [];
  rows.push(await measure('local admin POST /login (baseline)', async () => ok(await post('admin', PASSWORD))));
  rows.push(await measure('directory user POST /login', async (i) => ok(await post(`user${i}`, `pass-${i}`))));
  // the directory group netops, made by those sign-ins, gets a role: its members may call /whoami
  const adminToken = await (await ok(await post('admin', PASSWORD))).text();
  const groups = await (
    await fetch(`${platform.url}/user-management/groups`, { headers: { authorization: `Bearer ${adminToken}` } })
  ).json();
  const netops = groups.results.find((g) => g.name === 'netops');
  await ok(
    await fetch(`${platform.url}/user-management/groups/${netops._id}/roles`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ roles: ['operations'] }),
    }),
  );
  // a different user each round: the gateway has not seen these Basic credentials
  rows.push(
    await measure('directory user Basic GET /whoami, not remembered', async (i) =>
      ok(
        await fetch(`${platform.url}/whoami`, {
          headers: { authorization: `Basic ${Buffer.from(`user${i}:pass-${i}`).toString('base64')}` },
        }),
      ),
    ),
  );
  const tokens = [];
  for (let i = 0; i <= ROUNDS; i += 1) tokens.push(await (await ok(await post(`user${i}`, `pass-${i}`))).text());
  const sessions = platform.stores.get('admin').collection('sessions');
  rows.push(
    await measure('re-check of a directory session (resolveSession, due)', async (i) => {
      const sid = peekToken(tokens[i]).sid;
      await sessions.updateOne({ _id: sid }, { $set: { checkedAt: 0 } });
      await bus.call('admin.resolveSession', { body: { sid } }, { caller: SYSTEM_CALLER });
    }),
  );

  const base = rows[0].median;
  console.log(
    `\nSign-in benchmark${SMOKE ? ' (smoke size: checks that it runs, timings mean nothing)' : ''}, ${ROUNDS} rounds, ${os.cpus().length} cores, node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  console.log('| step | median ms | p95 ms | median vs baseline |');
  console.log('|---|---:|---:|---:|');
  for (const row of rows)
    console.log(`| ${row.name} | ${row.median.toFixed(1)} | ${row.p95.toFixed(1)} | ${(row.median / base).toFixed(2)} |`);

  const baseline = { ...rows[0], name: 'local admin POST /login' };
  for (const row of rows.slice(1)) {
    report({
      name: `${row.name}, median`,
      value: row.median,
      unit: 'ms',
      baseline: { name: `${baseline.name}, median`, value: baseline.median },
      better: 'lower',
    });
    report({
      name: `${row.name}, p95`,
      value: row.p95,
      unit: 'ms',
      baseline: { name: `${baseline.name}, p95`, value: baseline.p95 },
      better: 'lower',
    });
  }
}
