import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
    const notAKey = path.join(dir, 'not-a-key');
    writeFileSync(notAKey, 'root:x:0:0:root:/root:/bin/bash\n');
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const cases: [string, string][] = [
      ['passwd-file', '/etc/passwd'],
      ['text-file', notAKey],
      ['directory', dir],
      ['fifo', fifo],
      ['missing', path.join(dir, 'missing-key')],
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
    expect(JSON.stringify(await command('passwd-file'))).not.toContain('root:');
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
    const keyFile = path.join(dir, 'id_rsa');
    writeFileSync(keyFile, encrypted, { mode: 0o600 });
    await device('key-file', { gw_ssh_private_key_file: keyFile, gw_ssh_passphrase: 'right-passphrase' });
    expect(await command('key-file')).toMatchObject({ status: 502, body: { code: 'DEVICE_UNREACHABLE' } });
    for (const text of ['right-passphrase', 'wrong-passphrase', 'garbage\n']) expect(gw.logs()).not.toContain(text);
  });
});
