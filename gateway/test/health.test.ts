import { APPLICATION_NAMES, RELEASE, SERVICE_NAMES } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
});

afterAll(async () => {
  await platform.stop();
});

describe('health and metrics', () => {
  it('tells the version and the calendar release on /health/server', async () => {
    const res = await platform.http('GET', '/health/server', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: RELEASE, release: RELEASE });
    expect((res.body as { release: string }).release).toMatch(/^\d{4}\.\d+\.\d+$/);
    expect((res.body as { uptime: number }).uptime).toBeGreaterThan(0);
  });

  it('tells the host on /health/system', async () => {
    const res = await platform.http('GET', '/health/system', { token });
    expect(res.body).toMatchObject({ totalmem: expect.any(Number), loadavg: expect.any(Array) });
  });

  it('finds every application through discovery of its service, with request counts', async () => {
    await platform.http('GET', '/user-management/groups', { token });
    const res = await platform.http('GET', '/health/applications', { token });
    const apps = (res.body as { results: { id: string; service: string; state: string; instances: { requests: number }[] }[] }).results;
    expect(apps.map((a) => a.id)).toEqual([...APPLICATION_NAMES]);
    expect(new Set(apps.map((a) => a.service))).toEqual(new Set(SERVICE_NAMES));
    for (const app of apps) expect(app.state).toBe('RUNNING');
    expect(apps.find((a) => a.id === 'AdminEssentials')?.instances[0]?.requests).toBeGreaterThan(0);
    const one = await platform.http('GET', '/health/applications/MOP', { token });
    expect(one.body).toMatchObject({ id: 'MOP', service: 'mop', state: 'RUNNING' });
    const unknown = await platform.http('GET', '/health/applications/nope', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'APPLICATION_NOT_FOUND', message: expect.stringContaining('WorkFlowEngine') });
  });

  it('answers Prometheus text for the whole platform on /exporter_metrics', async () => {
    await platform.http('GET', '/whoami', { token });
    const res = await fetch(`${platform.url}/exporter_metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/nap_http_requests_total\{[^}]*operation="admin.whoami"/);
    expect(text).toMatch(/nap_bus_requests_total\{[^}]*operation="admin.whoami"/);
    expect(text).toMatch(/nap_process_resident_memory_bytes/);
    expect(text).not.toMatch(/^"/);
  });
});
