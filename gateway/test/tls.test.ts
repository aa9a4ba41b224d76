import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { listen } from '@nap/gateway';
import { createMetrics } from '@nap/telemetry';
import { makeCertificate } from '@nap/testing';
import { ConfigError, loadConfig } from '@nap/runtime';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * Optional TLS in the gateway itself (NAP_TLS_CERT_FILE, NAP_TLS_KEY_FILE), with a certificate
 * this test makes with openssl: answers go out over https, the login cookie is Secure and HSTS is sent.
 */

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
if (!hasOpenssl) {
  const message = 'openssl is not on PATH: the TLS tests need it to make a certificate (apt-get install openssl)';
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`SKIPPING the gateway TLS tests: ${message}`);
}
const describeTls = hasOpenssl ? describe : describe.skip;

let dir: string;
let certFile: string;
let keyFile: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-tls-'));
  certFile = path.join(dir, 'cert.pem');
  keyFile = path.join(dir, 'key.pem');
  if (!hasOpenssl) return;
  makeCertificate(certFile, keyFile, 1);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over https, trusting only the test's certificate. */
function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: options.method ?? 'GET', headers: options.headers, ca: readFileSync(certFile) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describeTls('the gateway serving https itself', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({ config: { tls: { certFile, keyFile } } });
  });

  afterAll(async () => {
    await platform?.stop();
  });

  it('answers over https, with a Secure cookie and HSTS', async () => {
    expect(platform.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const login = await request(`${platform.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: TEST_ADMIN }),
    });
    expect(login.status).toBe(200);
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^token=nap1\./);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(login.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(login.headers['cache-control']).toBe('no-store');

    const whoami = await request(`${platform.url}/whoami`, { headers: { authorization: `Bearer ${login.body}` } });
    expect(whoami.status).toBe(200);
    expect(JSON.parse(whoami.body)).toMatchObject({ username: TEST_ADMIN.username });
    expect(whoami.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('speaks no plain http on its port', async () => {
    await expect(fetch(platform.url.replace('https:', 'http:') + '/health/live')).rejects.toThrow();
  });

  it('refuses a client that does not trust its certificate', async () => {
    await expect(fetch(`${platform.url}/health/live`)).rejects.toThrow();
  });
});

describe('TLS settings', () => {
  it('takes both files or neither', () => {
    const base = { NAP_DATA_DIR: dir, NAP_SECRET_KEY: 'test-secret-key-of-32-characters' };
    expect(loadConfig(base).tls).toBeUndefined();
    expect(loadConfig({ ...base, NAP_TLS_CERT_FILE: 'cert.pem', NAP_TLS_KEY_FILE: 'key.pem' }).tls).toEqual({
      certFile: path.resolve('cert.pem'),
      keyFile: path.resolve('key.pem'),
    });
    const half = () => loadConfig({ ...base, NAP_TLS_CERT_FILE: certFile });
    expect(half).toThrow(ConfigError);
    expect(half).toThrow(/NAP_TLS_CERT_FILE and NAP_TLS_KEY_FILE go together/);
  });

  it('names the setting and the file it cannot read', async () => {
    const missing = path.join(dir, 'no-such-cert.pem');
    await expect(listen(() => undefined, '127.0.0.1', 0, { tls: { certFile: missing, keyFile: missing } })).rejects.toThrow(
      `NAP_TLS_CERT_FILE names ${missing}, which cannot be read (ENOENT)`,
    );
  });
});

/** The certificate a TLS client is served on `port` now: its subject's CN and its notAfter (epoch ms). */
function servedCertificate(port: number): Promise<{ cn: string; expiresAt: number }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const peer = socket.getPeerCertificate();
      socket.end();
      resolve({ cn: String(peer.subject.CN), expiresAt: Date.parse(peer.valid_to) });
    });
    socket.on('error', reject);
  });
}

describeTls('a renewed certificate', () => {
  it('is served to new connections without a restart; a key of another certificate is refused and the served one stays', async () => {
    const renewDir = mkdtempSync(path.join(os.tmpdir(), 'nap-tls-renew-'));
    const cert = path.join(renewDir, 'cert.pem');
    const key = path.join(renewDir, 'key.pem');
    makeCertificate(cert, key, 2, 'first');
    const metrics = createMetrics({ processMetrics: false });
    const expiry = async () =>
      (await metrics.registry.getSingleMetric('nap_tls_certificate_expiry_timestamp_seconds')?.get())?.values[0]?.value;
    const reloads = async (outcome: string) =>
      (await metrics.registry.getSingleMetric('nap_tls_certificate_reloads_total')?.get())?.values.find((v) => v.labels.outcome === outcome)
        ?.value;
    // checked by hand below, not on a timer
    const server = await listen((_req, res) => res.end('ok'), '127.0.0.1', 0, {
      tls: { certFile: cert, keyFile: key },
      tlsReloadCheckMs: 3_600_000,
      registry: metrics.registry,
    });
    try {
      const first = await servedCertificate(server.port);
      expect(first.cn).toBe('first');
      expect((await expiry()) ?? 0).toBe(first.expiresAt / 1000);
      expect(server.tls?.check()).toBe(false);

      // certbot writes the new pair beside the old and swaps them in
      makeCertificate(`${cert}.new`, `${key}.new`, 90, 'renewed');
      renameSync(`${key}.new`, key);
      renameSync(`${cert}.new`, cert);
      expect(server.tls?.check()).toBe(true);
      const renewed = await servedCertificate(server.port);
      expect(renewed.cn).toBe('renewed');
      expect(renewed.expiresAt - first.expiresAt).toBeGreaterThan(80 * 86_400_000);
      expect(await expiry()).toBe(renewed.expiresAt / 1000);
      expect(await reloads('ok')).toBe(1);

      // the certificate replaced, its key not (yet): refused, the renewed pair stays in service
      makeCertificate(path.join(renewDir, 'other.pem'), path.join(renewDir, 'other-key.pem'), 30, 'other');
      copyFileSync(path.join(renewDir, 'other.pem'), cert);
      expect(server.tls?.check()).toBe(false);
      expect(await reloads('failed')).toBe(1);
      expect((await servedCertificate(server.port)).cn).toBe('renewed');
      expect(await expiry()).toBe(renewed.expiresAt / 1000);
      // a half-written file too
      writeFileSync(cert, '-----BEGIN CERTIFICATE-----\nMIIB');
      expect(server.tls?.check()).toBe(false);
      expect(await reloads('failed')).toBe(2);
      // a file taken away (a renewal that deletes before it writes): refused, the served pair stays
      rmSync(cert);
      expect(server.tls?.check()).toBe(false);
      expect(await reloads('failed')).toBe(3);
      expect((await servedCertificate(server.port)).cn).toBe('renewed');
      // its key arrives: the pair is taken
      copyFileSync(path.join(renewDir, 'other.pem'), cert);
      copyFileSync(path.join(renewDir, 'other-key.pem'), key);
      expect(server.tls?.check()).toBe(true);
      expect((await servedCertificate(server.port)).cn).toBe('other');
    } finally {
      await server.close();
      rmSync(renewDir, { recursive: true, force: true });
    }
  });
});
