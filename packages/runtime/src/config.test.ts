import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from './config';
import { createSecretBox } from './secret-box';

describe('loadConfig', () => {
  it('applies the defaults of a laptop start', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-config-'));
    const config = loadConfig({ NAP_DATA_DIR: dir });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 3000, adminUsername: 'admin', tokenTtlSeconds: 43_200, dataDir: dir });
    expect(config.natsUrl).toBeUndefined();
    expect(config.mongoUrl).toBeUndefined();
    // the generated secret is kept, private, and reused
    const file = path.join(dir, 'secret.key');
    expect(readFileSync(file, 'utf8')).toBe(config.secretKey);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadConfig({ NAP_DATA_DIR: dir }).secretKey).toBe(config.secretKey);
  });

  it('coerces numbers and keeps given values', () => {
    const config = loadConfig({ NAP_PORT: '8080', NAP_NATS_URL: 'nats://127.0.0.1:4222', NAP_SECRET_KEY: 'a-secret-of-sixteen+', NAP_DATA_DIR: '/tmp/x' });
    expect(config.port).toBe(8080);
    expect(config.natsUrl).toBe('nats://127.0.0.1:4222');
    expect(config.secretKey).toBe('a-secret-of-sixteen+');
  });

  it('lists every bad value at once and names each', () => {
    let error: unknown;
    try {
      loadConfig({ NAP_PORT: 'eighty', NAP_MONGO_URL: 'postgres://x', NAP_ADMIN_PASSWORD: 'short', NAP_SECRET_KEY: 'k' }, { require: ['NAP_NATS_URL'] });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['NAP_PORT', 'NAP_MONGO_URL', 'NAP_ADMIN_PASSWORD', 'NAP_SECRET_KEY', 'NAP_NATS_URL']) expect(problems).toContain(name);
  });
});

describe('createSecretBox', () => {
  it('seals so that only the same secret opens, and never in clear', () => {
    const box = createSecretBox('secret-one-of-sixteen');
    const sealed = box.seal('device-password');
    expect(sealed).not.toContain('device-password');
    expect(box.open(sealed)).toBe('device-password');
    expect(box.seal('device-password')).not.toBe(sealed);
    expect(() => createSecretBox('another-secret-sixteen').open(sealed)).toThrow();
  });
});
