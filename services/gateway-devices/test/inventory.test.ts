import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startGatewayPlatform } from './platform';
import type { GatewayPlatform } from './platform';

let gw: GatewayPlatform;

beforeAll(async () => {
  gw = await startGatewayPlatform();
});

afterAll(async () => {
  await gw?.stop();
});

const SECRET = 'S3cret-device-password!';
const BECOME = 'enable-secret-xyz';

describe('inventory devices over HTTP', () => {
  it('creates a device, masks its secrets, seals them at rest and never logs them', async () => {
    const created = await gw.http('POST', '/gw/createInventoryDevice', {
      name: 'edge-1',
      variables: {
        gw_host: '192.0.2.10',
        gw_port: '2222',
        gw_network_os: 'cisco_ios',
        gw_user: 'netops',
        gw_password: SECRET,
        gw_become_pass: BECOME,
      },
      groups: ['edge', 'lab'],
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      name: 'edge-1',
      created: true,
      groups: ['edge', 'lab'],
      variables: {
        gw_host: '192.0.2.10',
        gw_port: 2222,
        gw_network_os: 'cisco_ios',
        gw_user: 'netops',
        gw_password: '********',
        gw_become_pass: '********',
      },
    });
    const got = await gw.http('POST', '/gw/getInventoryDevice', { name: 'edge-1' });
    expect(got.status).toBe(200);
    expect(JSON.stringify(got.body)).not.toContain(SECRET);
    expect(got.body).toMatchObject({ name: 'edge-1', variables: { gw_password: '********' } });

    const raw = await gw.store.collection('devices').findOne({ name: 'edge-1' });
    const stored = JSON.stringify(raw);
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain(BECOME);
    expect((raw as unknown as { secrets: Record<string, string> }).secrets.gw_password).toMatch(/^v1\./);
    expect(gw.logs()).toContain('Inventory device created');
    expect(gw.logs()).not.toContain(SECRET);
    expect(gw.logs()).not.toContain(BECOME);
  });

  it('updates through the same route: merges variables, keeps a masked secret, removes with null', async () => {
    const before = (await gw.store.collection('devices').findOne({ name: 'edge-1' })) as unknown as { secrets: Record<string, string> };
    const res = await gw.http('POST', '/gw/createInventoryDevice', {
      name: 'edge-1',
      variables: { gw_password: '********', gw_port: null, gw_os: 'ios' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      created: false,
      groups: ['edge', 'lab'],
      variables: { gw_os: 'ios', gw_password: '********', gw_host: '192.0.2.10' },
    });
    expect((res.body as { variables: Record<string, unknown> }).variables).not.toHaveProperty('gw_port');
    const after = (await gw.store.collection('devices').findOne({ name: 'edge-1' })) as unknown as { secrets: Record<string, string> };
    expect(after.secrets.gw_password).toBe(before.secrets.gw_password);
  });

  it('refuses ******** for a secret the device does not have stored, naming it, rather than dropping it', async () => {
    const kept = await gw.http('POST', '/gw/createInventoryDevice', { name: 'edge-1', variables: { gw_ssh_passphrase: '********' } });
    expect(kept.status).toBe(400);
    expect(kept.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'body.variables.gw_ssh_passphrase is ********, but the device has no secret stored there to keep: give the secret itself',
      details: [{ member: 'body.variables.gw_ssh_passphrase' }],
    });
    // a new device copied from an answer: refused, not created without its password
    const copied = await gw.http('POST', '/gw/createInventoryDevice', {
      name: 'copied',
      variables: { gw_user: 'u', gw_password: '********' },
    });
    expect(copied.status).toBe(400);
    expect((await gw.http('POST', '/gw/getInventoryDevice', { name: 'copied' })).status).toBe(404);
  });

  it('refuses bad variables with 400 naming them', async () => {
    const res = await gw.http('POST', '/gw/createInventoryDevice', {
      name: 'bad',
      variables: { gw_port: 70000, gw_http_base_url: 'ftp://x' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    // a numeric string is decimal digits: not hexadecimal, binary or an exponent, which Number() would read
    for (const port of ['0x16', '0b10', '2e1', '22.0']) {
      const odd = await gw.http('POST', '/gw/createInventoryDevice', { name: 'bad', variables: { gw_port: port } });
      expect(odd.status).toBe(400);
      expect(odd.body).toMatchObject({ details: [{ member: 'body.variables.gw_port' }] });
    }
  });

  it('refuses credentials inside gw_http_base_url with 400 saying where they belong, without echoing them', async () => {
    const res = await gw.http('POST', '/gw/createInventoryDevice', {
      name: 'creds-in-url',
      variables: { gw_http_base_url: 'https://netops:s3cret-pw@10.0.0.1:8443/api' },
    });
    expect(res.status).toBe(400);
    const text = JSON.stringify(res.body);
    expect(text).toContain('gw_http_username');
    expect(text).toContain('gw_http_password');
    expect(text).not.toContain('s3cret-pw');
    const missing = await gw.http('POST', '/gw/getInventoryDevice', { name: 'creds-in-url' });
    expect(missing.status).toBe(404);
  });

  it('lists with filters built from allowed fields only, values as data, sort, skip and limit', async () => {
    for (const [name, os, group] of [
      ['core-1', 'juniper_junos', 'core'],
      ['core-2', 'juniper_junos', 'core'],
      ['leaf-1', 'arista_eos', 'dc'],
    ] as const) {
      expect(
        (
          await gw.http('POST', '/gw/createInventoryDevice', {
            name,
            variables: { gw_network_os: os, gw_host: `10.0.0.${name.length}` },
            groups: [group],
          })
        ).status,
      ).toBe(200);
    }
    const junos = await gw.http('POST', '/gw/getInventoryDevices', { filter: { gw_network_os: 'juniper_junos' }, sort: '-name' });
    expect(junos.status).toBe(200);
    expect(junos.body).toMatchObject({ total: 2, items: [{ name: 'core-2' }, { name: 'core-1' }] });
    const byName = await gw.http('POST', '/gw/getInventoryDevices', { filter: { name: 'CORE' }, limit: 1, skip: 1, sort: { name: 1 } });
    expect(byName.body).toMatchObject({ total: 2, items: [{ name: 'core-2' }], skip: 1, limit: 1 });
    const byGroup = await gw.http('POST', '/gw/getInventoryDevices', { filter: { group: 'dc', 'variables.gw_network_os': 'arista_eos' } });
    expect(byGroup.body).toMatchObject({ total: 1, items: [{ name: 'leaf-1' }] });
    // A regular expression in a name filter is matched literally.
    expect((await gw.http('POST', '/gw/getInventoryDevices', { filter: { name: '.*' } })).body).toMatchObject({ total: 0 });
    // Operators are not values: an object is refused, as is a secret or a made-up member path.
    expect((await gw.http('POST', '/gw/getInventoryDevices', { filter: { name: { $ne: 'x' } } })).status).toBe(400);
    expect((await gw.http('POST', '/gw/getInventoryDevices', { filter: { gw_password: SECRET } })).status).toBe(400);
    expect((await gw.http('POST', '/gw/getInventoryDevices', { filter: { $where: 'true' } })).status).toBe(400);
    expect((await gw.http('POST', '/gw/getInventoryDevices', { sort: { 'secrets.gw_password': 1 } })).status).toBe(400);
    const all = await gw.http('POST', '/gw/getInventoryDevices', {});
    expect(JSON.stringify(all.body)).not.toContain(SECRET);
  });

  it('lists inventory groups with their members', async () => {
    const res = await gw.http('POST', '/gw/getInventoryGroups', {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      results: expect.arrayContaining([
        { name: 'core', description: '', devices: ['core-1', 'core-2'] },
        { name: 'edge', description: '', devices: ['edge-1'] },
      ]) as unknown,
    });
  });

  it('deletes a device and answers 404 afterwards', async () => {
    expect((await gw.http('POST', '/gw/createInventoryDevice', { name: 'doomed', variables: {} })).status).toBe(200);
    const del = await gw.http('DELETE', '/gw/deleteInventoryDevice', { name: 'doomed' });
    expect(del).toEqual({ status: 200, body: { status: 'success', message: 'Device "doomed" deleted' } });
    const again = await gw.http('DELETE', '/gw/deleteInventoryDevice', { name: 'doomed' });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 'DEVICE_NOT_FOUND' });
    expect((await gw.http('POST', '/gw/getInventoryDevice', { name: 'doomed' })).status).toBe(404);
  });
});

describe('bus-only device methods', () => {
  it('createDevice maps deviceVars exactly as the spec says', async () => {
    const device = await gw.call('createDevice', {
      name: 'mapped',
      deviceVars: {
        'device-type': 'network_cli',
        ipaddress: '198.51.100.7',
        port: 22,
        ostype: 'cisco_ios',
        gwOS: 'ios',
        user: 'ops',
        sshKey: path.join(gw.sshKeyDir, 'id_ed25519'),
        hostKeyChecking: false,
        provider: 'cli',
        password: SECRET,
        become: true,
        become_method: 'enable',
        become_pass: BECOME,
      },
    });
    expect(device).toMatchObject({
      name: 'mapped',
      variables: {
        gw_connection: 'network_cli',
        gw_host: '198.51.100.7',
        gw_port: 22,
        gw_network_os: 'cisco_ios',
        gw_os: 'ios',
        gw_user: 'ops',
        gw_ssh_private_key_file: path.join(gw.sshKeyDir, 'id_ed25519'),
        host_key_checking: false,
        gw_provider: 'cli',
        gw_password: '********',
        gw_become: true,
        gw_become_method: 'enable',
        gw_become_pass: '********',
      },
    });
    expect(Object.keys((device as { variables: object }).variables)).toHaveLength(13);
    expect(await gw.callError('createDevice', { name: 'mapped', deviceVars: { ipaddress: '1.1.1.1' } })).toMatchObject({
      code: 'DEVICE_ALREADY_EXISTS',
      status: 409,
    });
    expect(await gw.callError('createDevice', { name: 'other', deviceVars: { ip: '1.1.1.1' } })).toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 400,
    });
  });

  it('createDeviceRaw, updateDevice, getDevice, getDevices, getDevicesFiltered, details, deleteDevice', async () => {
    await gw.call('createDeviceRaw', {
      name: 'raw-1',
      variables: { gw_host: '203.0.113.1', custom_var: 'kept as is', gw_password: SECRET },
    });
    expect(await gw.callError('createDeviceRaw', { name: 'raw-1', variables: {} })).toMatchObject({ code: 'DEVICE_ALREADY_EXISTS' });
    const updated = await gw.call('updateDevice', { name: 'raw-1', variables: { gw_network_os: 'linux' } });
    expect(updated).toMatchObject({ variables: { custom_var: 'kept as is', gw_network_os: 'linux', gw_password: '********' } });
    expect(await gw.callError('updateDevice', { name: 'nope', variables: {} })).toMatchObject({ code: 'DEVICE_NOT_FOUND', status: 404 });
    expect(await gw.call('getDevice', { name: 'raw-1' })).toMatchObject({ name: 'raw-1' });
    const page = await gw.call<{ results: { name: string }[]; total: number }>('getDevices', { limit: 2 });
    expect(page.results).toHaveLength(2);
    expect(page.total).toBeGreaterThanOrEqual(5);
    const filtered = await gw.call<{ results: { name: string }[] }>('getDevicesFiltered', { filter: { custom_var: 'kept as is' } });
    expect(filtered.results.map((d) => d.name)).toEqual(['raw-1']);
    const details = await gw.call('getDeviceDetailsRaw', { name: 'raw-1' });
    expect(details).toMatchObject({ name: 'raw-1', secretVariables: ['gw_password'], hostKeyFingerprint: null });
    const many = await gw.call<{ results: unknown[]; total: number }>('getDevicesDetailsRaw', { names: ['raw-1', 'mapped'] });
    expect(many.total).toBe(2);
    expect(JSON.stringify(many)).not.toContain(SECRET);
    expect(await gw.call('deleteDevice', { name: 'raw-1' })).toMatchObject({ status: 'success' });
    expect(await gw.callError('getDevice', { name: 'raw-1' })).toMatchObject({ code: 'DEVICE_NOT_FOUND' });
  });

  it('runs the seven device-group operations', async () => {
    const created = await gw.call('createDeviceGroup', { name: 'wan', description: 'WAN edge', devices: ['core-1'] });
    expect(created).toMatchObject({ name: 'wan', description: 'WAN edge', devices: ['core-1'] });
    expect(await gw.callError('createDeviceGroup', { name: 'wan' })).toMatchObject({ code: 'DEVICE_GROUP_ALREADY_EXISTS', status: 409 });
    // a group is kept by its name: none of the members every object has
    expect(await gw.callError('createDeviceGroup', { name: 'constructor' })).toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 400,
      message: expect.stringContaining('body.name "constructor" is reserved'),
    });
    expect(await gw.callError('createDeviceGroup', { name: 'ghosts', devices: ['nobody'] })).toMatchObject({ code: 'DEVICE_NOT_FOUND' });
    expect(await gw.call('addDeviceToDeviceGroup', { group: 'wan', devices: ['core-2', 'leaf-1'] })).toMatchObject({
      devices: ['core-1', 'core-2', 'leaf-1'],
    });
    expect(await gw.call('deleteDeviceFromDeviceGroup', { group: 'wan', devices: ['core-1'] })).toMatchObject({
      devices: ['core-2', 'leaf-1'],
    });
    // one device as the Automation Gateway adapter's workflow tasks name it; neither member is a 400
    expect(await gw.call('addDeviceToDeviceGroup', { group: 'wan', deviceName: 'core-1' })).toMatchObject({
      devices: ['core-1', 'core-2', 'leaf-1'],
    });
    expect(await gw.callError('addDeviceToDeviceGroup', { group: 'wan' })).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(await gw.call('deleteDeviceFromDeviceGroup', { group: 'wan', devices: ['core-1'] })).toMatchObject({
      devices: ['core-2', 'leaf-1'],
    });
    expect(await gw.call('updateDeviceGroup', { name: 'wan', description: 'WAN', devices: ['leaf-1'] })).toMatchObject({
      description: 'WAN',
      devices: ['leaf-1'],
    });
    expect(await gw.call('getDeviceGroup', { name: 'wan' })).toMatchObject({ name: 'wan', devices: ['leaf-1'] });
    expect((await gw.call('getDevice', { name: 'leaf-1' })) as { groups: string[] }).toMatchObject({ groups: ['dc', 'wan'] });
    const groups = await gw.call<{ results: { name: string }[] }>('getDeviceGroups', {});
    expect(groups.results.map((g) => g.name)).toEqual(expect.arrayContaining(['wan', 'core', 'dc']) as unknown);
    expect(await gw.call('deleteDeviceGroup', { name: 'wan' })).toMatchObject({ status: 'success' });
    expect(await gw.callError('getDeviceGroup', { name: 'wan' })).toMatchObject({ code: 'DEVICE_GROUP_NOT_FOUND', status: 404 });
    expect((await gw.call('getDevice', { name: 'leaf-1' })) as { groups: string[] }).toMatchObject({ groups: ['dc'] });
  });

  it('refreshInventory reads the Ansible JSON inventory file', async () => {
    await writeFile(
      gw.inventoryFile,
      JSON.stringify({
        all: {
          vars: { gw_network_os: 'cisco_ios' },
          hosts: { 'file-1': { gw_host: '192.0.2.51' } },
          children: {
            branch: { vars: { gw_user: 'branch-ops' }, hosts: { 'file-2': { gw_host: '192.0.2.52', gw_network_os: 'arista_eos' } } },
          },
        },
      }),
    );
    const res = await gw.call<{ results: { name: string; variables: Record<string, unknown>; groups: string[] }[] }>(
      'refreshInventory',
      {},
    );
    const byName = new Map(res.results.map((d) => [d.name, d]));
    expect(byName.get('file-1')).toMatchObject({ variables: { gw_host: '192.0.2.51', gw_network_os: 'cisco_ios' }, groups: [] });
    expect(byName.get('file-2')).toMatchObject({
      variables: { gw_host: '192.0.2.52', gw_network_os: 'arista_eos', gw_user: 'branch-ops' },
      groups: ['branch'],
    });
    await writeFile(gw.inventoryFile, '{ not json');
    expect(await gw.callError('refreshInventory', {})).toMatchObject({ code: 'DEVICE_INVENTORY_INVALID', status: 422 });
  });

  it('getPlatformJson describes the gateway as configured', async () => {
    const desc = await gw.call('getPlatformJson', {});
    expect(desc).toMatchObject({
      name: 'nap-gateway-devices',
      sessionLimits: { global: 100, perDevice: 2, perDeviceVariable: 'gw_session_limit' },
      protocols: ['ssh', 'netconf', 'http'],
    });
    expect((desc as { deviceTypes: string[] }).deviceTypes).toContain('juniper_junos');
  });
});
