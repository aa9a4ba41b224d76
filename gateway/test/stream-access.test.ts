import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventSubject, getOperation, signToken } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import { createMemoryBus } from '@nap/bus';
import type { BusClient, MemoryBus } from '@nap/bus';
import { createLogger } from '@nap/telemetry';
import { eventually } from '@nap/testing';
import { Authenticator } from '../src/auth/authenticator';
import type { AccessChange } from '../src/auth/authenticator';
import { createEventStreams } from '../src/sse';
import type { EventStreams } from '../src/sse';
import { streamEnd } from '../../test/support/sse';

/**
 * Open event streams follow their callers' access with one check per set of credentials: however
 * many streams a caller holds, a change that concerns it is one resolution of its session at the
 * admin service, a change that does not concern it none, and changes heard while a check runs make
 * one more check after it (the one running may have read what they changed), not one each.
 */

const GROUP = 'group-a';
const OTHER_GROUP = 'group-b';
const JOB = 'job-1';

interface Harness {
  bus: MemoryBus;
  url: string;
  /** Resolutions of each session the admin service was asked for. */
  resolutions: Map<string, number>;
  /** The caller each session resolves to now. */
  callers: Map<string, Caller>;
  /** While set, a resolution answers the caller as it was when asked only once this resolves. */
  gate: { wait?: Promise<void> };
  /** A token of a new session of `caller`. */
  login(caller: Caller): string;
  authenticator: Authenticator;
  stop(): Promise<void>;
}

async function harness(): Promise<Harness> {
  const bus = createMemoryBus();
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const kid = randomUUID();
  const resolutions = new Map<string, number>();
  const callers = new Map<string, Caller>();
  const gate: Harness['gate'] = {};
  // the admin service's and the workflow service's side of the calls the gateway makes
  const client = {
    call: async (operation: string, input: { body?: { sid?: string }; params?: { jobId?: string } }) => {
      if (operation === 'admin.getTokenKeys')
        return { status: 200, body: { keys: [{ kid, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() }] } };
      if (operation === 'admin.resolveSession') {
        const sid = input.body?.sid ?? '';
        resolutions.set(sid, (resolutions.get(sid) ?? 0) + 1);
        const read = callers.get(sid);
        if (gate.wait !== undefined) await gate.wait;
        return { status: 200, body: read };
      }
      if (operation === 'workflow.watchJobEvents') return { status: 200, body: { _id: input.params?.jobId, status: 'running' } };
      throw new Error(`unexpected call of ${operation}`);
    },
  } as unknown as BusClient;
  const logger = createLogger({ name: 'stream-access-test', level: 'silent' });
  const authenticator = new Authenticator({ bus, client, logger });
  await authenticator.start();
  const streams: EventStreams = createEventStreams({
    bus,
    client,
    authenticator,
    clientAddress: () => '127.0.0.1',
    logger,
    heartbeatMs: 60_000,
    callerRecheckMs: 3_600_000,
  });
  const op = getOperation('workflow.watchJobEvents');
  const server = http.createServer((req, res) => {
    void (async () => {
      try {
        await streams.get(op.id)?.(op, { jobId: JOB }, req, res, {}, randomUUID());
      } catch (err) {
        res.statusCode = (err as { status?: number }).status ?? 500;
        res.end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const now = Math.floor(Date.now() / 1000);
  return {
    bus,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    resolutions,
    callers,
    gate,
    authenticator,
    login(caller) {
      const sid = randomUUID();
      callers.set(sid, caller);
      return signToken({ sid, sub: caller.id, iat: now, exp: now + 3600, kid }, privateKey);
    },
    async stop() {
      await streams.stop();
      await authenticator.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await bus.close();
    },
  };
}

const person = (id: string, groups: string[]): Caller => ({ id, username: id, roles: ['operations'], groups });
const sidOf = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sid: string }).sid;

/** Opens the job's stream as `token`; resolves once the gateway answered its headers (the stream is followed from then on). */
async function open(h: Harness, token: string): Promise<Response> {
  const res = await fetch(`${h.url}/operations-manager/jobs/${JOB}/events`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return res;
}

async function groupChanged(h: Harness, groupId: string): Promise<void> {
  await h.bus.publishEvent(eventSubject('admin', 'group', groupId, 'groupChanged'), Buffer.from(JSON.stringify({ groupId })));
}

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.stop();
});

it('checks the many streams of one caller with one resolution of its session, and a caller the change does not concern with none', async () => {
  const alice = h.login(person('alice', [GROUP]));
  const bob = h.login(person('bob', [OTHER_GROUP]));
  const alices = await Promise.all(Array.from({ length: 6 }, () => open(h, alice)));
  const bobs = await Promise.all(Array.from({ length: 2 }, () => open(h, bob)));
  h.resolutions.clear();

  // alice is taken out of the group whose roles change: every one of her streams ends
  h.callers.set(sidOf(alice), person('alice', []));
  await groupChanged(h, GROUP);
  expect(await Promise.all(alices.map((res) => streamEnd(res, 10_000)))).toEqual(Array.from({ length: 6 }, () => 'ended'));
  expect(Object.fromEntries(h.resolutions)).toEqual({ [sidOf(alice)]: 1 });
  for (const res of bobs) await res.body?.cancel();
});

it('makes one more check after changes heard while one runs, not one each, and ends the streams by what the later one reads', async () => {
  const alice = h.login(person('alice', [GROUP]));
  const streams = await Promise.all(Array.from({ length: 3 }, () => open(h, alice)));
  h.resolutions.clear();
  const heard: AccessChange[] = [];
  const stopHearing = h.authenticator.onChange((change) => heard.push(change));
  let release: () => void = () => undefined;
  h.gate.wait = new Promise<void>((resolve) => (release = resolve));

  await groupChanged(h, GROUP);
  await eventually('the first check asks for the session', () => h.resolutions.get(sidOf(alice)) === 1);
  // while it waits for its answer (alice as she was), she leaves the group, and three more changes are heard
  h.callers.set(sidOf(alice), person('alice', []));
  for (let i = 0; i < 3; i++) await groupChanged(h, GROUP);
  await eventually('the changes are heard', () => heard.length === 4);
  delete h.gate.wait;
  release();

  expect(await Promise.all(streams.map((res) => streamEnd(res, 10_000)))).toEqual(['ended', 'ended', 'ended']);
  expect(h.resolutions.get(sidOf(alice))).toBe(2);
  stopHearing();
});

it('after a change that may concern anyone (events missed while the bus was away), checks each caller once, whatever its streams', async () => {
  const people = ['carol', 'dave', 'erin'].map((id) => ({ id, token: h.login(person(id, [GROUP])) }));
  const streams = await Promise.all(people.flatMap(({ token }) => [open(h, token), open(h, token)]));
  h.resolutions.clear();
  for (const { id, token } of people) h.callers.set(sidOf(token), person(id, []));
  h.authenticator.clear();
  expect(await Promise.all(streams.map((res) => streamEnd(res, 10_000)))).toEqual(streams.map(() => 'ended'));
  expect(Object.fromEntries(h.resolutions)).toEqual(Object.fromEntries(people.map(({ token }) => [sidOf(token), 1])));
});
