import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startGatewayPlatform } from './platform';
import type { GatewayPlatform } from './platform';

let gw: GatewayPlatform;
let dir: string;
let closedPort: number;

beforeAll(async () => {
  gw = await startGatewayPlatform();
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-gw-keys-'));
  // a port nobody listens on: a usable key gets as far as the connection
  const probe: Server = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await gw?.stop();
});

const GARBAGE_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\ngarbage\n-----END OPENSSH PRIVATE KEY-----';

async function device(name: string, variables: Record<string, unknown>): Promise<void> {
  const res = await gw.http('POST', '/gw/createInventoryDevice', {
    name,
    variables: { gw_host: '127.0.0.1', gw_port: closedPort, gw_user: 'u', gw_network_os: 'cisco_ios', ...variables },
  });
  expect(res.status).toBe(200);
}

async function command(name: string) {
  return gw.http('POST', '/gw/ssh/send_command', {
    sshSendCommandParameters: { host: name, commands: ['show version'], connection_options: { device_type: 'cisco_ios' } },
  });
}

describe('a private key that cannot be used', () => {
  it('a key file that is not a key answers 422 naming gw_ssh_private_key_file, exactly as an unreadable path does', async () => {
    const notAKey = path.join(gw.sshKeyDir, 'not-a-key');
    writeFileSync(notAKey, 'root:x:0:0:root:/root:/bin/bash\n');
    const fifo = path.join(gw.sshKeyDir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const subdir = path.join(gw.sshKeyDir, 'subdir');
    mkdirSync(subdir);
    const cases: [string, string][] = [
      ['text-file', notAKey],
      ['directory', subdir],
      ['fifo', fifo],
      ['missing', path.join(gw.sshKeyDir, 'missing-key')],
    ];
    const messages: string[] = [];
    for (const [name, file] of cases) {
      await device(name, { gw_ssh_private_key_file: file });
      const res = await command(name);
      expect({ name, status: res.status, code: (res.body as { code: string }).code }).toEqual({
        name,
        status: 422,
        code: 'DEVICE_CREDENTIALS_MISSING',
      });
      const message = (res.body as { message: string }).message;
      expect(message).toContain('gw_ssh_private_key_file');
      messages.push(message.replace(file, 'FILE').replace(`"${name}"`, 'NAME'));
    }
    // the answers tell nothing of whether the path exists, is readable, or what it holds
    expect(new Set(messages).size).toBe(1);
    expect(JSON.stringify(await command('text-file'))).not.toContain('root:');
  });

  it('an inline key that is not usable answers 422 naming the variable and why, never the key', async () => {
    await device('inline-garbage', { gw_ssh_private_key_file: GARBAGE_KEY });
    const garbage = await command('inline-garbage');
    expect(garbage).toMatchObject({ status: 422, body: { code: 'DEVICE_CREDENTIALS_MISSING' } });
    expect((garbage.body as { message: string }).message).toContain(
      'gw_ssh_private_key_file of device "inline-garbage" is not a private key',
    );
    expect(JSON.stringify(garbage.body)).not.toContain('garbage\n');

    const { privateKey: encrypted } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'right-passphrase' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    await device('encrypted', { gw_ssh_private_key: encrypted });
    const noPassphrase = await command('encrypted');
    expect(noPassphrase).toMatchObject({ status: 422, body: { code: 'DEVICE_CREDENTIALS_MISSING' } });
    expect((noPassphrase.body as { message: string }).message).toContain('gw_ssh_private_key of device "encrypted"');
    expect((noPassphrase.body as { message: string }).message).toContain('gw_ssh_passphrase');
    await device('encrypted', { gw_ssh_passphrase: 'wrong-passphrase' });
    expect(await command('encrypted')).toMatchObject({ status: 422, body: { code: 'DEVICE_CREDENTIALS_MISSING' } });

    // with the right passphrase the key is used: the session goes on to the (closed) port
    await device('encrypted', { gw_ssh_passphrase: 'right-passphrase' });
    expect(await command('encrypted')).toMatchObject({ status: 502, body: { code: 'DEVICE_UNREACHABLE' } });
    const keyFile = path.join(gw.sshKeyDir, 'id_rsa');
    writeFileSync(keyFile, encrypted, { mode: 0o600 });
    await device('key-file', { gw_ssh_private_key_file: keyFile, gw_ssh_passphrase: 'right-passphrase' });
    expect(await command('key-file')).toMatchObject({ status: 502, body: { code: 'DEVICE_UNREACHABLE' } });
    for (const text of ['right-passphrase', 'wrong-passphrase', 'garbage\n']) expect(gw.logs()).not.toContain(text);
  });
});

/** A group of `roles` and an account in it, signed in: its token. */
async function userWithRoles(username: string, roles: string[]): Promise<string> {
  const group = await gw.http('POST', '/user-management/groups', { group: { name: `${username}-group`, roles } });
  expect(group.status).toBe(200);
  const groupId = (group.body as { data: { _id: string } }).data._id;
  const account = await gw.http('POST', '/user-management/accounts', {
    account: { username, password: 'password-123', groups: [groupId] },
  });
  expect(account.status).toBe(200);
  const login = await gw.http('POST', '/login', { user: { username, password: 'password-123' } });
  expect(login.status).toBe(200);
  return login.body as string;
}

type Refusal = { status: number; body: { code?: string; message?: string; details?: { member: string; message: string }[] } };

describe('key files only from the key directory (NAP_SSH_KEY_DIR)', () => {
  const { privateKey: usable } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });

  it('a device writer naming a file outside the key directory is refused when writing, naming the member', async () => {
    const engineer = await userWithRoles('key-engineer', ['engineering']);
    const outside = path.join(dir, 'team-b-key');
    writeFileSync(outside, usable, { mode: 0o600 });
    // inside by its path, outside by its real path: known when written too
    symlinkSync('/etc/passwd', path.join(gw.sshKeyDir, 'host-key-link'));
    const cases: [Record<string, unknown>, string][] = [
      [{ gw_ssh_private_key_file: '/etc/ssh/ssh_host_ed25519_key' }, 'gw_ssh_private_key_file'],
      [{ gw_ssh_private_key_file: outside }, 'gw_ssh_private_key_file'],
      [{ gw_ssh_private_key_file: path.join(gw.sshKeyDir, '..', 'secret-key') }, 'gw_ssh_private_key_file'],
      [{ gw_ssh_private_key_file: path.join(gw.sshKeyDir, 'host-key-link') }, 'gw_ssh_private_key_file'],
      [{ gw_ssh_private_key_file: 'relative/key' }, 'gw_ssh_private_key_file'],
      [{ ansible_ssh_private_key_file: '/etc/ssh/ssh_host_ed25519_key' }, 'ansible_ssh_private_key_file'],
      [{ ansible_private_key_file: outside }, 'ansible_private_key_file'],
    ];
    for (const [token, who] of [
      [engineer, 'engineering'],
      [gw.token, 'admin'],
    ] as const) {
      for (const [variables, variable] of cases) {
        const res = (await gw.http(
          'POST',
          '/gw/createInventoryDevice',
          { name: `outside-${variable}`, variables: { gw_host: '127.0.0.1', ...variables } },
          token,
        )) as Refusal;
        expect({ who, variables, status: res.status, code: res.body.code, member: res.body.details?.[0]?.member }).toEqual({
          who,
          variables,
          status: 400,
          code: 'VALIDATION_FAILED',
          member: `body.variables.${variable}`,
        });
        expect(res.body.message).toContain('NAP_SSH_KEY_DIR');
      }
    }
    expect(
      await gw.callError('createDevice', { name: 'outside-spec', deviceVars: { sshKey: '/etc/ssh/ssh_host_ed25519_key' } }),
    ).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      details: [{ member: 'body.deviceVars.sshKey' }],
    });
    // a key inside the directory, and the key itself, are written and used
    const inside = path.join(gw.sshKeyDir, 'team-a');
    writeFileSync(inside, usable, { mode: 0o600 });
    const ok = await gw.http(
      'POST',
      '/gw/createInventoryDevice',
      { name: 'inside-key', variables: { gw_host: '127.0.0.1', gw_port: closedPort, gw_user: 'u', gw_ssh_private_key_file: inside } },
      engineer,
    );
    expect(ok.status).toBe(200);
    expect(await command('inside-key')).toMatchObject({ status: 502, body: { code: 'DEVICE_UNREACHABLE' } });
  });

  it('is checked again when the key is read: a key swapped for a symlink out of the directory is refused', async () => {
    const inside = path.join(gw.sshKeyDir, 'swapped');
    writeFileSync(inside, usable, { mode: 0o600 });
    await device('swapped-key', { gw_ssh_private_key_file: inside });
    expect(await command('swapped-key')).toMatchObject({ status: 502, body: { code: 'DEVICE_UNREACHABLE' } });
    const elsewhere = path.join(dir, 'elsewhere-key');
    writeFileSync(elsewhere, usable, { mode: 0o600 });
    const link = path.join(gw.sshKeyDir, 'swapped.link');
    symlinkSync(elsewhere, link);
    renameSync(link, inside);
    const res = (await command('swapped-key')) as Refusal;
    expect(res).toMatchObject({ status: 422, body: { code: 'DEVICE_CREDENTIALS_MISSING' } });
    expect(res.body.message).toContain(`lies outside the key directory ${gw.sshKeyDir} (NAP_SSH_KEY_DIR)`);
  });

  it('a device of an inventory file naming a key elsewhere is loaded, and its sessions say to move the key or set NAP_SSH_KEY_DIR', async () => {
    const legacy = path.join(dir, 'legacy-id_rsa');
    writeFileSync(legacy, usable, { mode: 0o600 });
    writeFileSync(
      gw.inventoryFile,
      JSON.stringify({
        all: { hosts: { 'legacy-key': { gw_host: '127.0.0.1', gw_port: closedPort, gw_user: 'u', gw_ssh_private_key_file: legacy } } },
      }),
    );
    await gw.call('refreshInventory', {});
    const res = (await command('legacy-key')) as Refusal;
    expect(res).toMatchObject({ status: 422, body: { code: 'DEVICE_CREDENTIALS_MISSING' } });
    expect(res.body.message).toBe(
      `gw_ssh_private_key_file of device "legacy-key" lies outside the key directory ${gw.sshKeyDir} (NAP_SSH_KEY_DIR): ` +
        'move the key there, or have the operator set NAP_SSH_KEY_DIR to the directory that holds the keys',
    );
  });
});

describe('a connection on the platform host (gw_connection: local) is for admins', () => {
  it('a device writer who is not an admin may neither give a device a local connection nor change a local device', async () => {
    const engineer = await userWithRoles('local-engineer', ['engineering']);
    const apiwrite = await userWithRoles('local-apiwrite', ['apiwrite']);
    const cases: [Record<string, unknown>, string][] = [
      [{ gw_connection: 'local' }, 'gw_connection'],
      [{ ansible_connection: 'local' }, 'ansible_connection'],
      [{ gw_connection: 'ansible.builtin.local' }, 'gw_connection'],
      [{ ansible_connection: 'community.docker.docker' }, 'ansible_connection'],
    ];
    for (const token of [engineer, apiwrite]) {
      for (const [variables, variable] of cases) {
        const res = (await gw.http('POST', '/gw/createInventoryDevice', { name: 'wants-local', variables }, token)) as Refusal;
        expect({ variables, status: res.status, code: res.body.code, member: res.body.details?.[0]?.member }).toEqual({
          variables,
          status: 403,
          code: 'FORBIDDEN',
          member: `body.variables.${variable}`,
        });
      }
    }
    expect((await gw.http('POST', '/gw/getInventoryDevice', { name: 'wants-local' })).status).toBe(404);
    // a device connection is theirs to write
    expect(
      (await gw.http('POST', '/gw/createInventoryDevice', { name: 'remote', variables: { gw_connection: 'network_cli' } }, engineer))
        .status,
    ).toBe(200);
    expect(
      (await gw.http('POST', '/gw/createInventoryDevice', { name: 'remote', variables: { gw_connection: 'local' } }, engineer)).status,
    ).toBe(403);
    // an admin's local device stays the admin's
    expect(
      (await gw.http('POST', '/gw/createInventoryDevice', { name: 'admin-local', variables: { gw_connection: 'local' } })).status,
    ).toBe(200);
    const change = (await gw.http(
      'POST',
      '/gw/createInventoryDevice',
      { name: 'admin-local', variables: { ansible_become: true } },
      engineer,
    )) as Refusal;
    expect(change).toMatchObject({ status: 403, body: { code: 'FORBIDDEN', details: [{ member: 'body.variables.gw_connection' }] } });
    expect(change.body.message).toContain('Only an admin may change device "admin-local"');
    expect((await gw.http('POST', '/gw/getInventoryDevice', { name: 'admin-local' })).body).toMatchObject({
      variables: { gw_connection: 'local' },
    });
    // the operator's inventory file may hold one
    writeFileSync(gw.inventoryFile, JSON.stringify({ all: { hosts: { 'file-local': { gw_connection: 'local' } } } }));
    await gw.call('refreshInventory', {});
    expect((await gw.http('POST', '/gw/getInventoryDevice', { name: 'file-local' })).status).toBe(200);
  });
});
