import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
    const config = loadConfig({
      NAP_PORT: '8080',
      NAP_NATS_URL: 'nats://127.0.0.1:4222',
      NAP_SECRET_KEY: 'a-secret-of-sixteen+',
      NAP_DATA_DIR: '/tmp/x',
    });
    expect(config.port).toBe(8080);
    expect(config.natsUrl).toBe('nats://127.0.0.1:4222');
    expect(config.secretKey).toBe('a-secret-of-sixteen+');
  });

  it('lists every bad value at once and names each', () => {
    let error: unknown;
    try {
      loadConfig(
        { NAP_PORT: 'eighty', NAP_MONGO_URL: 'postgres://x', NAP_ADMIN_PASSWORD: 'short', NAP_SECRET_KEY: 'k' },
        { require: ['NAP_NATS_URL'] },
      );
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['NAP_PORT', 'NAP_MONGO_URL', 'NAP_ADMIN_PASSWORD', 'NAP_SECRET_KEY', 'NAP_NATS_URL'])
      expect(problems).toContain(name);
  });
});

describe('settings read from files', () => {
  it('reads NAP_*_FILE, drops one trailing newline, and keeps the value out of the environment', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-config-'));
    writeFileSync(path.join(dir, 'key'), 'a-secret-key-from-a-file\n');
    writeFileSync(path.join(dir, 'password'), 'pass word with spaces');
    writeFileSync(path.join(dir, 'mongo'), 'mongodb://nap:s3cret@mongo:27017/?authSource=admin\n');
    const env = {
      NAP_DATA_DIR: dir,
      NAP_SECRET_KEY_FILE: path.join(dir, 'key'),
      NAP_ADMIN_PASSWORD_FILE: path.join(dir, 'password'),
      NAP_MONGO_URL_FILE: path.join(dir, 'mongo'),
      NAP_HEALTH_PORT: '8081',
    };
    const config = loadConfig(env);
    expect(config.secretKey).toBe('a-secret-key-from-a-file');
    expect(config.adminPassword).toBe('pass word with spaces');
    expect(config.mongoUrl).toBe('mongodb://nap:s3cret@mongo:27017/?authSource=admin');
    expect(config.healthPort).toBe(8081);
    expect(env).not.toHaveProperty('NAP_SECRET_KEY');
  });

  it('refuses a file that is missing, empty or doubled by the variable, naming each and no value', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-config-'));
    writeFileSync(path.join(dir, 'empty'), '');
    writeFileSync(path.join(dir, 'short'), 'short\n');
    let error: unknown;
    try {
      loadConfig({
        NAP_DATA_DIR: dir,
        NAP_SECRET_KEY_FILE: path.join(dir, 'absent'),
        NAP_ADMIN_PASSWORD_FILE: path.join(dir, 'empty'),
        NAP_MONGO_URL: 'mongodb://a',
        NAP_MONGO_URL_FILE: path.join(dir, 'empty'),
        NAP_HEALTH_PORT: '70000',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        `NAP_SECRET_KEY_FILE cannot be read (ENOENT): ${path.join(dir, 'absent')}`,
        `NAP_ADMIN_PASSWORD_FILE names an empty file: ${path.join(dir, 'empty')}`,
        'NAP_MONGO_URL and NAP_MONGO_URL_FILE are both set: keep one',
      ]),
    );
    expect(problems.join('\n')).toContain('NAP_HEALTH_PORT');
    // a value read from a file is validated like the variable, and not shown
    const short = () => loadConfig({ NAP_DATA_DIR: dir, NAP_ADMIN_PASSWORD_FILE: path.join(dir, 'short') });
    expect(short).toThrow(/NAP_ADMIN_PASSWORD must NOT have fewer than 8 characters/);
    expect(short).not.toThrow(/short/);
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

describe('browser settings', () => {
  it('reads the public URL, the allowed origins, the proxy trust and the console folder', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-config-'));
    const config = loadConfig({
      NAP_DATA_DIR: dir,
      NAP_PUBLIC_URL: 'https://NAP.example.net/',
      NAP_ALLOWED_ORIGINS: 'https://ops.example.net, http://127.0.0.1:8080',
      NAP_TRUST_PROXY: 'true',
      NAP_CONSOLE_DIR: 'console/dist',
    });
    expect(config.publicUrl).toBe('https://nap.example.net');
    expect(config.allowedOrigins).toEqual(['https://ops.example.net', 'http://127.0.0.1:8080']);
    expect(config.trustProxy).toBe(true);
    expect(config.consoleDir).toBe(path.resolve('console/dist'));
    expect(loadConfig({ NAP_DATA_DIR: dir })).toMatchObject({ allowedOrigins: [], trustProxy: false });
  });

  it('refuses an origin with a path and a public URL that is not http(s), naming each', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-config-'));
    const load = () => loadConfig({ NAP_DATA_DIR: dir, NAP_PUBLIC_URL: 'ftp://nap', NAP_ALLOWED_ORIGINS: 'https://ops.example.net/app' });
    expect(load).toThrow(/NAP_PUBLIC_URL/);
    expect(load).toThrow(/NAP_ALLOWED_ORIGINS holds "https:\/\/ops.example.net\/app"/);
  });
});
