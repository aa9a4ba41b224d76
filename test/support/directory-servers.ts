import { execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'ldapts';
import { freePort, isCi, isExecutable, spawnTracked, stopChild, waitForOutput, waitUntil, canConnect } from '@nap/testing';

/**
 * Real directory servers for the sign-in tests: OpenLDAP's `slapd` and FreeRADIUS, each run in the
 * foreground on free ports of 127.0.0.1 with a configuration and database of its own in a fresh
 * directory, and a certificate authority made with openssl for TLS. Debian's packages `slapd`,
 * `ldap-utils` and `freeradius` (.ci/run installs them).
 */

export const SLAPD = '/usr/sbin/slapd';
export const FREERADIUS = '/usr/sbin/freeradius';

/**
 * True when the server binary is there. A missing one fails under CI=true and is announced loudly
 * on a developer machine (the suite then runs nothing).
 */
export function serverPresent(binary: string, debianPackage: string): boolean {
  if (isExecutable(binary)) return true;
  const notice = `DIRECTORY SIGN-IN TESTS NOT RUN: ${binary} is missing. Install it: apt-get install ${debianPackage}`;
  if (isCi()) throw new Error(`${notice}\nCI=true: a missing server is a failure, not a skip.`);
  console.warn(`\n${'!'.repeat(100)}\n${notice}\n${'!'.repeat(100)}\n`);
  return false;
}

/** A certificate authority and a server certificate for 127.0.0.1 it signed (PEM files). */
export interface TestCa {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** Makes a CA and a server certificate (SAN IP:127.0.0.1, DNS:localhost) with openssl in `dir`. */
export function makeTestCa(dir: string, name = 'NAP test CA'): TestCa {
  mkdirSync(dir, { recursive: true });
  const file = (f: string) => path.join(dir, f);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', file('server.key'), '-out', file('server.csr'));
  writeFileSync(file('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('san.ext'),
    '-out',
    file('server.pem'),
  );
  return { caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
}

// ---- OpenLDAP ----

export const LDAP_SUFFIX = 'dc=nap,dc=test';
export const LDAP_ROOT_DN = `cn=admin,${LDAP_SUFFIX}`;
export const LDAP_ROOT_PASSWORD = 'root-secret';
/** The service account NAP searches with (read-only by the ACL below). */
export const LDAP_SERVICE_DN = `cn=nap-service,ou=services,${LDAP_SUFFIX}`;
export const LDAP_SERVICE_PASSWORD = 'service-secret';

export interface Slapd {
  /** ldap://127.0.0.1:<port> (StartTLS offered when started with a CA). */
  url: string;
  /** ldaps://127.0.0.1:<port>, when started with a CA. */
  ldapsUrl?: string;
  dir: string;
  /** A client bound as the root DN, for the test to change the directory; closed by `stop`. */
  admin(): Promise<Client>;
  /**
   * SIGSTOP: the server keeps its port and stops answering. Resolves once the kernel shows every
   * thread of it stopped (a thread inside a system call stops only when the call returns), so that
   * what a test sends next meets a server that cannot answer.
   */
  pause(): Promise<void>;
  /** SIGCONT. */
  resume(): void;
  stop(): Promise<void>;
}

/** True when every thread of process `pid` is stopped (state T in /proc), false when one runs or it is gone. */
function allThreadsStopped(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    const tasks = readdirSync(`/proc/${pid}/task`);
    return tasks.every((task) => {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
    });
  } catch {
    return false;
  }
}

/**
 * Starts slapd with a slapd.conf of its own: the mdb database under `dc=nap,dc=test`, the memberof
 * overlay (groupOfNames/member ↔ memberOf, kept up to date as members change), an ACL that lets the
 * service account read and users bind, and TLS when a CA is given. The tree is loaded through LDAP
 * after the start, so that the overlay writes memberOf.
 */
export async function startSlapd(options: { tls?: TestCa } = {}): Promise<Slapd> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-slapd-'));
  mkdirSync(path.join(dir, 'db'));
  const port = await freePort();
  const ldapsPort = options.tls ? await freePort() : undefined;
  const tls = options.tls
    ? [
        `TLSCACertificateFile ${options.tls.caFile}`,
        `TLSCertificateFile ${options.tls.certFile}`,
        `TLSCertificateKeyFile ${options.tls.keyFile}`,
      ]
    : [];
  writeFileSync(
    path.join(dir, 'slapd.conf'),
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'include /etc/ldap/schema/nis.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      'moduleload memberof',
      `pidfile ${path.join(dir, 'slapd.pid')}`,
      ...tls,
      'database mdb',
      'maxsize 16777216',
      `suffix "${LDAP_SUFFIX}"`,
      `rootdn "${LDAP_ROOT_DN}"`,
      `rootpw ${LDAP_ROOT_PASSWORD}`,
      `directory ${path.join(dir, 'db')}`,
      'overlay memberof',
      'memberof-group-oc groupOfNames',
      'memberof-member-ad member',
      'memberof-memberof-ad memberOf',
      'memberof-refint TRUE',
      'access to attrs=userPassword by self write by anonymous auth by * none',
      `access to * by dn.exact="${LDAP_SERVICE_DN}" read by self read by * none`,
      '',
    ].join('\n'),
  );
  const urls = [`ldap://127.0.0.1:${port}/`, ...(ldapsPort ? [`ldaps://127.0.0.1:${ldapsPort}/`] : [])];
  const child: ChildProcess = spawnTracked(SLAPD, ['-d', '0', '-h', urls.join(' '), '-f', path.join(dir, 'slapd.conf')]);
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  await waitUntil('slapd', () => canConnect(port), {
    timeoutMs: 15_000,
    dead: () => child.exitCode !== null,
    diagnostics: async () => output,
  });
  const clients: Client[] = [];
  const slapd: Slapd = {
    url: `ldap://127.0.0.1:${port}`,
    ...(ldapsPort ? { ldapsUrl: `ldaps://127.0.0.1:${ldapsPort}` } : {}),
    dir,
    async admin() {
      const client = new Client({ url: `ldap://127.0.0.1:${port}`, timeout: 5_000, connectTimeout: 5_000 });
      await client.bind(LDAP_ROOT_DN, LDAP_ROOT_PASSWORD);
      clients.push(client);
      return client;
    },
    async pause() {
      child.kill('SIGSTOP');
      await waitUntil('slapd stopping', () => allThreadsStopped(child.pid), { timeoutMs: 5_000, dead: () => child.exitCode !== null });
    },
    resume: () => child.kill('SIGCONT'),
    async stop() {
      child.kill('SIGCONT');
      for (const client of clients) await client.unbind().catch(() => undefined);
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return slapd;
}

/** A person of the test directory. */
export interface LdapPerson {
  uid: string;
  password: string;
  givenName?: string;
  sn?: string;
  mail?: string;
}

/** Loads the base tree (people, groups, services, the service account) into a started slapd. */
export async function loadDirectory(slapd: Slapd, people: LdapPerson[], groups: Record<string, string[]>): Promise<void> {
  const client = await slapd.admin();
  await client.add(LDAP_SUFFIX, { objectClass: ['dcObject', 'organization'], dc: 'nap', o: 'NAP test' });
  for (const ou of ['people', 'groups', 'services']) await client.add(`ou=${ou},${LDAP_SUFFIX}`, { objectClass: 'organizationalUnit', ou });
  await client.add(LDAP_SERVICE_DN, {
    objectClass: ['simpleSecurityObject', 'organizationalRole'],
    cn: 'nap-service',
    userPassword: LDAP_SERVICE_PASSWORD,
  });
  for (const person of people) await addPerson(slapd, person);
  for (const [cn, members] of Object.entries(groups)) await addGroup(slapd, cn, members);
}

export function personDn(uid: string): string {
  return `uid=${uid},ou=people,${LDAP_SUFFIX}`;
}

export function groupDn(cn: string): string {
  return `cn=${cn},ou=groups,${LDAP_SUFFIX}`;
}

export async function addPerson(slapd: Slapd, person: LdapPerson): Promise<void> {
  const client = await slapd.admin();
  await client.add(personDn(person.uid), {
    objectClass: ['inetOrgPerson'],
    uid: person.uid,
    cn: person.uid,
    sn: person.sn ?? person.uid,
    ...(person.givenName ? { givenName: person.givenName } : {}),
    ...(person.mail ? { mail: person.mail } : {}),
    userPassword: person.password,
  });
}

/** A groupOfNames; its members are DNs of people (uid) or of other groups (`group:<cn>`). */
export async function addGroup(slapd: Slapd, cn: string, members: string[]): Promise<void> {
  const client = await slapd.admin();
  await client.add(groupDn(cn), {
    objectClass: 'groupOfNames',
    cn,
    member: members.map((m) => (m.startsWith('group:') ? groupDn(m.slice(6)) : personDn(m))),
  });
}

// ---- FreeRADIUS ----

export const RADIUS_SECRET = 'radius-shared-secret';

export interface FreeRadius {
  /** 127.0.0.1:<port> */
  server: string;
  stop(): Promise<void>;
}

/** A RADIUS user: password, and the reply attributes Access-Accept carries (attribute → values). */
export interface RadiusUser {
  password: string;
  reply?: Record<string, string[]>;
}

/**
 * Starts FreeRADIUS 3 in the foreground (`-f -l stdout`) with a configuration directory of its own:
 * one client (127.0.0.1, the shared secret), the `files` module with the users given, PAP.
 */
export async function startFreeRadius(users: Record<string, RadiusUser>): Promise<FreeRadius> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-radius-'));
  const port = await freeUdpPort();
  const entries = Object.entries(users).map(([name, user]) => {
    const reply = Object.entries(user.reply ?? {}).flatMap(([attr, values]) => values.map((v) => `${attr} += "${v}"`));
    return `${name} Cleartext-Password := "${user.password}"\n${reply.length ? `    ${reply.join(',\n    ')}\n` : ''}`;
  });
  writeFileSync(path.join(dir, 'users'), entries.join('\n'));
  writeFileSync(path.join(dir, 'dictionary'), '$INCLUDE /usr/share/freeradius/dictionary\n');
  writeFileSync(
    path.join(dir, 'radiusd.conf'),
    `prefix = /usr
exec_prefix = /usr
sysconfdir = /etc
localstatedir = /var
sbindir = /usr/sbin
logdir = ${dir}
raddbdir = ${dir}
radacctdir = ${dir}
name = freeradius
confdir = ${dir}
modconfdir = ${dir}
run_dir = ${dir}
db_dir = ${dir}
libdir = /usr/lib/freeradius
pidfile = ${dir}/radiusd.pid
max_request_time = 30
cleanup_delay = 0
max_requests = 1024
hostname_lookups = no
log {
  destination = stdout
}
security {
  allow_core_dumps = no
  allow_vulnerable_openssl = yes
}
thread pool {
  start_servers = 1
  max_servers = 2
  min_spare_servers = 1
  max_spare_servers = 2
}
client nap {
  ipaddr = 127.0.0.1
  secret = ${RADIUS_SECRET}
}
modules {
  pap {
  }
  files {
    filename = ${dir}/users
  }
}
server default {
  listen {
    type = auth
    ipaddr = 127.0.0.1
    port = ${port}
  }
  authorize {
    files
    pap
  }
  authenticate {
    Auth-Type PAP {
      pap
    }
  }
  post-auth {
    # FreeRADIUS before 3.2.5 signs replies with a Message-Authenticator only when told (BlastRADIUS, CVE-2024-3596)
    update reply {
      Message-Authenticator := 0x00
    }
    Post-Auth-Type REJECT {
      update reply {
        Message-Authenticator := 0x00
      }
    }
  }
}
`,
  );
  const child = spawnTracked(FREERADIUS, ['-f', '-l', 'stdout', ...(process.env.DEBUG_RADIUS ? ['-xx'] : []), '-d', dir]);
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  await waitForOutput(child, /Ready to process requests/, { what: 'freeradius', timeoutMs: 15_000, output: () => output });
  return {
    server: `127.0.0.1:${port}`,
    async stop() {
      await stopChild(child);
      if (process.env.DEBUG_RADIUS) console.log(output);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A UDP socket on 127.0.0.1 that receives and never answers: a RADIUS server that does not answer. */
export async function silentUdpServer(): Promise<{ server: string; received(): number; stop(): Promise<void> }> {
  const socket: Socket = createSocket('udp4');
  let count = 0;
  socket.on('message', () => (count += 1));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    received: () => count,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}
