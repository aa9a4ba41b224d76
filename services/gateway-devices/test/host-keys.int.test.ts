import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startCliSimulator } from '@nap/lab';
import { checkHostKey, scanHostKey } from '../src/clients/ssh-connection';
import { withSshSession } from '../src/clients/ssh-session';
import { knownHostsKey, knownHostsRoute } from '@nap/contracts';
import { hostKeyFingerprint, knownHostsLine } from '../src/domain/known-hosts';
import { createMemoryKnownHostsStore } from '../src/store/known-hosts-repository';
import { eventually } from '@nap/testing';
import { expectAppError, simulatorTarget } from './helpers';
import { startGatewayPlatform } from './platform';
import type { GatewayPlatform } from './platform';

describe('host key checking', () => {
  it('trusts on first use, then refuses a changed key with DEVICE_HOST_KEY_CHANGED', async () => {
    const knownHosts = createMemoryKnownHostsStore();
    const first = await startCliSimulator({ deviceType: 'cisco_ios' });
    const port = first.port;
    const hostPort = knownHostsKey(first.host, port);
    try {
      await withSshSession(simulatorTarget(first, {}, knownHosts), (s) => s.sendCommand('show clock'));
      expect(knownHosts.entries()).toEqual({ [hostPort]: first.hostKeyFingerprint });
      // Same key again: accepted.
      await withSshSession(simulatorTarget(first, {}, knownHosts), (s) => s.sendCommand('show clock'));
    } finally {
      await first.stop();
    }

    // The "device" is replaced: same address and port, new host key.
    const replaced = await startCliSimulator({ deviceType: 'cisco_ios', port });
    try {
      const err = await expectAppError(
        withSshSession(simulatorTarget(replaced, {}, knownHosts), () => Promise.resolve()),
        'DEVICE_HOST_KEY_CHANGED',
      );
      expect(err.message).toContain(replaced.hostKeyFingerprint);
      expect(err.message).toContain(first.hostKeyFingerprint);
      expect(err.details).toMatchObject({ hostPort, expected: first.hostKeyFingerprint, actual: replaced.hostKeyFingerprint });
      // The trusted key is not overwritten by a refused one.
      expect(knownHosts.entries()).toEqual({ [hostPort]: first.hostKeyFingerprint });
      expect(replaced.sessions()).toBe(0);
    } finally {
      await replaced.stop();
    }
  });

  it('in strict mode refuses an unknown key and accepts a known one', async () => {
    const sim = await startCliSimulator({ deviceType: 'arista_eos' });
    try {
      const empty = createMemoryKnownHostsStore();
      const err = await expectAppError(
        withSshSession(simulatorTarget(sim, { hostKeyChecking: 'strict' }, empty), () => Promise.resolve()),
        'DEVICE_HOST_KEY_UNKNOWN',
      );
      expect(err.message).toContain('not trusted');
      expect(empty.entries()).toEqual({});

      const known = createMemoryKnownHostsStore({ [knownHostsKey(sim.host, sim.port)]: sim.hostKeyFingerprint });
      const result = await withSshSession(simulatorTarget(sim, { hostKeyChecking: 'strict' }, known), (s) => s.sendCommand('show version'));
      expect(result.failed).toBe(false);
    } finally {
      await sim.stop();
    }
  });

  it('accepts any key and records nothing when checking is off', async () => {
    const sim = await startCliSimulator({ deviceType: 'juniper_junos' });
    try {
      const store = createMemoryKnownHostsStore({ [knownHostsKey(sim.host, sim.port)]: 'SHA256:someone-else' });
      await withSshSession(simulatorTarget(sim, { hostKeyChecking: 'off' }, store), (s) => s.sendCommand('show version'));
      expect(store.entries()).toEqual({ [knownHostsKey(sim.host, sim.port)]: 'SHA256:someone-else' });
    } finally {
      await sim.stop();
    }
  });

  it('reads a key without logging in, records it with its blob, and writes a known_hosts line that OpenSSH trusts (what Ansible runs use)', async () => {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios' });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nap-known-hosts-'));
    try {
      const key = await scanHostKey(sim.host, sim.port, 5_000);
      expect(key).toBeDefined();
      if (key === undefined) return;
      expect(hostKeyFingerprint(key)).toBe(sim.hostKeyFingerprint);
      expect(sim.sessions()).toBe(0);
      const store = createMemoryKnownHostsStore();
      const hostPort = knownHostsKey(sim.host, sim.port);
      expect(await checkHostKey(store, hostPort, key, 'tofu')).toBeUndefined();
      expect(await store.get(hostPort)).toBe(sim.hostKeyFingerprint);
      expect(await store.keyOf?.(hostPort)).toEqual(key);
      // a changed key is refused and does not replace the trusted one
      const other = createMemoryKnownHostsStore({ [hostPort]: 'SHA256:someone-else' });
      expect(await checkHostKey(other, hostPort, key, 'tofu')).toMatchObject({ kind: 'changed' });
      expect(await checkHostKey(createMemoryKnownHostsStore(), hostPort, key, 'strict')).toMatchObject({ kind: 'unknown' });

      // OpenSSH with strict checking: the written line gets past host verification (to the login),
      // an empty file stops it at "Host key verification failed"
      const trusted = path.join(dir, 'trusted');
      const empty = path.join(dir, 'empty');
      await writeFile(trusted, `${knownHostsLine(sim.host, sim.port, key)}\n`);
      await writeFile(empty, '');
      const sshWith = (file: string) =>
        new Promise<string>((resolve) => {
          execFile(
            'ssh',
            [
              '-o',
              `UserKnownHostsFile=${file}`,
              '-o',
              'GlobalKnownHostsFile=/dev/null',
              '-o',
              'StrictHostKeyChecking=yes',
              '-o',
              'BatchMode=yes',
              '-o',
              'PreferredAuthentications=none,publickey',
              '-p',
              String(sim.port),
              `nobody@${sim.host}`,
              'true',
            ],
            { timeout: 15_000 },
            (_err, _stdout, stderr) => resolve(stderr),
          );
        });
      expect(await sshWith(empty)).toContain('Host key verification failed');
      const accepted = await sshWith(trusted);
      expect(accepted).not.toContain('Host key verification failed');
      expect(accepted).toMatch(/Permission denied|Authentication|no more authentication methods/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await sim.stop();
    }
  });
});

describe('the trusted host keys over HTTP: list, forget a replaced device, trust one by hand', () => {
  let gw: GatewayPlatform;
  beforeAll(async () => {
    gw = await startGatewayPlatform();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  type Answer = { status: number; body: unknown };
  const send = (device: string): Promise<Answer> => gw.http('POST', '/gw/sshSendCommandExec', { host: device, commands: ['show clock'] });
  const errorOf = (res: Answer) => res.body as { code: string; message: string; details?: unknown };

  it('forgets the key of a replaced device so that it is trusted again, and pins a key for strict checking', async () => {
    const first = await startCliSimulator({ deviceType: 'cisco_ios' });
    const port = first.port;
    const hostPort = knownHostsKey(first.host, port);
    const device = {
      name: 'replaced-1',
      variables: { gw_host: first.host, gw_port: port, gw_user: first.username, gw_password: first.password, gw_network_os: 'cisco_ios' },
    };
    expect((await gw.http('POST', '/gw/createInventoryDevice', device)).status).toBe(200);
    try {
      expect((await send('replaced-1')).status).toBe(200);
    } finally {
      await first.stop();
    }
    const listed = await gw.http('GET', `/gw/knownHosts?equals[hostPort]=${encodeURIComponent(hostPort)}`);
    expect(listed).toMatchObject({ status: 200, body: { results: [{ hostPort, fingerprint: first.hostKeyFingerprint }], total: 1 } });

    // the device is replaced: same address and port, another key
    const replaced = await startCliSimulator({ deviceType: 'cisco_ios', port });
    try {
      const refused = await send('replaced-1');
      expect(refused.status).toBe(502);
      expect(errorOf(refused)).toMatchObject({ code: 'DEVICE_HOST_KEY_CHANGED' });
      expect(errorOf(refused).message).toContain(`DELETE /gw/knownHosts/${hostPort})`);

      const forgotten = await gw.http('DELETE', `/gw/knownHosts/${encodeURIComponent(hostPort)}`);
      expect(forgotten).toMatchObject({ status: 200, body: { status: 'success' } });
      expect((forgotten.body as { message: string }).message).toContain(first.hostKeyFingerprint);
      const again = await gw.http('DELETE', `/gw/knownHosts/${encodeURIComponent(hostPort)}`);
      expect(again).toMatchObject({ status: 404, body: { code: 'HOST_KEY_NOT_FOUND' } });

      // trust on first use again: the new key
      expect((await send('replaced-1')).status).toBe(200);
      expect((await gw.http('GET', '/gw/knownHosts')).body).toMatchObject({
        results: expect.arrayContaining([
          { hostPort, fingerprint: replaced.hostKeyFingerprint, created: expect.any(String) as unknown },
        ]) as unknown,
      });

      // strict: only the key an operator pinned is accepted
      const strict = { name: 'replaced-1', variables: { host_key_checking: 'strict' } };
      expect((await gw.http('POST', '/gw/createInventoryDevice', strict)).status).toBe(200);
      const pinnedWrong = await gw.http('PUT', `/gw/knownHosts/${encodeURIComponent(hostPort)}`, { fingerprint: first.hostKeyFingerprint });
      expect(pinnedWrong).toMatchObject({ status: 200, body: { hostPort, fingerprint: first.hostKeyFingerprint } });
      expect(errorOf(await send('replaced-1')).code).toBe('DEVICE_HOST_KEY_CHANGED');
      await gw.http('DELETE', `/gw/knownHosts/${encodeURIComponent(hostPort)}`);
      const unknown = await send('replaced-1');
      expect(errorOf(unknown)).toMatchObject({ code: 'DEVICE_HOST_KEY_UNKNOWN' });
      expect(errorOf(unknown).message).toContain(`PUT /gw/knownHosts/${hostPort} `);
      // a fingerprint copied with base64 padding is the same key
      const pinned = await gw.http('PUT', `/gw/knownHosts/${encodeURIComponent(hostPort)}`, {
        fingerprint: `${replaced.hostKeyFingerprint}=`,
      });
      expect(pinned.body).toMatchObject({ fingerprint: replaced.hostKeyFingerprint });
      expect((await send('replaced-1')).status).toBe(200);
    } finally {
      await replaced.stop();
    }

    // each change is in the audit trail, with the fingerprint before and after
    await eventually('the host key changes audited', async () => {
      const audit = await gw.http('GET', '/audit?equals[target.kind]=host-key&limit=10');
      const records = (
        audit.body as {
          results: {
            operation: string;
            outcome: { status: number };
            target: { id: string };
            changes?: { member: string; before: unknown; after: unknown }[];
          }[];
        }
      ).results;
      expect(records.map((r) => `${r.operation} ${r.outcome.status}`).reverse()).toEqual([
        'gateway-devices.forgetHostKey 200',
        'gateway-devices.forgetHostKey 404',
        'gateway-devices.trustHostKey 200',
        'gateway-devices.forgetHostKey 200',
        'gateway-devices.trustHostKey 200',
      ]);
      expect(records[0]).toMatchObject({
        target: { id: hostPort },
        changes: [{ member: 'fingerprint', before: null, after: replaced.hostKeyFingerprint }],
      });
      return true;
    });
  });

  it('refuses what is not a fingerprint, an endpoint or a host key checking mode, naming it', async () => {
    const badFingerprint = await gw.http('PUT', '/gw/knownHosts/10.0.0.1:22', { fingerprint: 'MD5:aa:bb' });
    expect(badFingerprint).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(JSON.stringify(badFingerprint.body)).toContain('body.fingerprint');
    // an IPv6 endpoint, by the route its errors name
    const ipv6 = await gw.http('PUT', knownHostsRoute(knownHostsKey('2001:db8::1', 22)), { fingerprint: `SHA256:${'B'.repeat(43)}` });
    expect(ipv6).toMatchObject({ status: 200, body: { hostPort: '[2001:db8::1]:22' } });
    expect((await gw.http('DELETE', knownHostsRoute('[2001:db8::1]:22'))).status).toBe(200);
    const badEndpoint = await gw.http('DELETE', '/gw/knownHosts/10.0.0.1');
    expect(badEndpoint.status).toBe(400);
    expect(JSON.stringify(badEndpoint.body)).toContain('params.hostPort');
    // a port outside 1..65535 (or written so that no session would look it up) is no endpoint
    for (const hostPort of ['10.0.0.1:99999', '10.0.0.1:0', '10.0.0.1:65536', '10.0.0.1:022', '[2001:db8::1]:70000']) {
      const badPort = await gw.http('PUT', knownHostsRoute(hostPort), { fingerprint: `SHA256:${'C'.repeat(43)}` });
      expect({ hostPort, status: badPort.status, body: badPort.body }).toMatchObject({
        hostPort,
        status: 400,
        body: { code: 'VALIDATION_FAILED', details: [{ member: 'params.hostPort' }] },
      });
    }
    const trusted = ((await gw.http('GET', '/gw/knownHosts')).body as { results: { hostPort: string }[] }).results.map((r) => r.hostPort);
    expect(trusted.filter((h) => h.startsWith('10.0.0.1:') || h.startsWith('[2001:db8::1]:'))).toEqual([]);
    expect(await gw.http('PUT', knownHostsRoute('10.0.0.1:65535'), { fingerprint: `SHA256:${'C'.repeat(43)}` })).toMatchObject({
      status: 200,
    });
    expect((await gw.http('DELETE', knownHostsRoute('10.0.0.1:65535'))).status).toBe(200);
    const badMode = await gw.http('POST', '/gw/createInventoryDevice', {
      name: 'bad-mode',
      variables: { gw_host: '192.0.2.1', host_key_checking: 'bogus' },
    });
    expect(badMode).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect((badMode.body as { message: string }).message).toContain('host_key_checking "bogus"');
    expect((await gw.http('POST', '/gw/getInventoryDevice', { name: 'bad-mode' })).status).toBe(404);
  });
});
