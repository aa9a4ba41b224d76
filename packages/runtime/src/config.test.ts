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

  it('reads the event streams a caller may hold: 100 unless NAP_STREAMS_PER_CALLER says otherwise, at least 1', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-config-'));
    expect(loadConfig({ NAP_DATA_DIR: dir }).streamsPerCaller).toBe(100);
    expect(loadConfig({ NAP_DATA_DIR: dir, NAP_STREAMS_PER_CALLER: '1000' }).streamsPerCaller).toBe(1000);
    expect(() => loadConfig({ NAP_DATA_DIR: dir, NAP_STREAMS_PER_CALLER: '0' })).toThrow('NAP_STREAMS_PER_CALLER');
  });

  it('reads the body limits, bounded at 64 MiB, and NAP_ADMIN_PASSWORD_RESET only with a password to apply', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-config-'));
    expect(loadConfig({ NAP_DATA_DIR: dir })).toMatchObject({
      bodyLimitBytes: 1_048_576,
      documentBodyLimitBytes: 8_388_608,
      adminPasswordReset: false,
    });
    expect(loadConfig({ NAP_DATA_DIR: dir, NAP_DOCUMENT_BODY_LIMIT_BYTES: '4194304' }).documentBodyLimitBytes).toBe(4_194_304);
    expect(() => loadConfig({ NAP_DATA_DIR: dir, NAP_DOCUMENT_BODY_LIMIT_BYTES: String(65 * 1024 * 1024) })).toThrow(
      'NAP_DOCUMENT_BODY_LIMIT_BYTES must be <= 67108864',
    );
    expect(() => loadConfig({ NAP_DATA_DIR: dir, NAP_ADMIN_PASSWORD_RESET: 'true' })).toThrow(
      'NAP_ADMIN_PASSWORD_RESET=true needs NAP_ADMIN_PASSWORD',
    );
    expect(loadConfig({ NAP_DATA_DIR: dir, NAP_ADMIN_PASSWORD_RESET: 'true', NAP_ADMIN_PASSWORD: 'long-enough' }).adminPasswordReset).toBe(
      true,
    );
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

describe('directory sign-in for a first start', () => {
  const base = { NAP_DATA_DIR: '/tmp/x', NAP_SECRET_KEY: 'a-secret-of-sixteen+' };

  function problemsOf(env: Record<string, string>): string[] {
    try {
      loadConfig({ ...base, ...env });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).problems;
    }
    throw new Error('accepted');
  }

  it('reads NAP_LDAP_* and NAP_RADIUS_*, secrets from _FILE too', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-config-'));
    writeFileSync(path.join(dir, 'bind'), 'bind-secret\n');
    writeFileSync(path.join(dir, 'ca.pem'), 'PEM');
    const config = loadConfig({
      ...base,
      NAP_LDAP_URL: 'ldaps://dc1.corp.example:636 ldaps://dc2.corp.example:636',
      NAP_LDAP_BIND_DN: 'CN=nap,OU=Services,DC=corp,DC=example',
      NAP_LDAP_BIND_PASSWORD_FILE: path.join(dir, 'bind'),
      NAP_LDAP_USER_BASE: 'DC=corp,DC=example',
      NAP_LDAP_USER_FILTER: '(sAMAccountName={{username}})',
      NAP_LDAP_GROUP_BASE: 'OU=Groups,DC=corp,DC=example',
      NAP_LDAP_NESTED_GROUPS: 'true',
      NAP_LDAP_ADMIN_GROUPS: 'NAP Admins, Network Architects',
      NAP_LDAP_CA_FILE: path.join(dir, 'ca.pem'),
      NAP_LDAP_TIMEOUT_MS: '3000',
      NAP_RADIUS_SERVERS: '10.1.1.1:1812, radius2.corp.example',
      NAP_RADIUS_SECRET: 'shared',
      NAP_RADIUS_TIMEOUT_MS: '2000',
    });
    expect(config.ldap).toEqual({
      type: 'ldap',
      url: 'ldaps://dc1.corp.example:636 ldaps://dc2.corp.example:636',
      bindDN: 'CN=nap,OU=Services,DC=corp,DC=example',
      bindPassword: 'bind-secret',
      userBase: 'DC=corp,DC=example',
      userFilter: '(sAMAccountName={{username}})',
      groupBase: 'OU=Groups,DC=corp,DC=example',
      nestedGroups: true,
      adminGroups: ['NAP Admins', 'Network Architects'],
      caFile: path.join(dir, 'ca.pem'),
      timeoutMs: 3000,
    });
    expect(config.radius).toEqual({
      type: 'radius',
      servers: ['10.1.1.1:1812', 'radius2.corp.example'],
      secret: 'shared',
      timeoutMs: 2000,
    });
    expect(loadConfig(base).ldap).toBeUndefined();
  });

  it('stops on a bad value, naming it', () => {
    expect(problemsOf({ NAP_LDAP_URL: 'http://dc1' })).toEqual([
      'NAP_LDAP_URL is "http://dc1": give LDAP server URLs such as ldaps://dc1.example.net:636 (several space- or comma-separated)',
    ]);
    // an enum names the values it takes, not "one of the allowed values"
    expect(problemsOf({ NAP_LDAP_URL: 'ldap://dc1', NAP_LDAP_USER_BASE: 'dc=x', NAP_LDAP_STARTTLS: 'maybe' })).toEqual([
      'NAP_LDAP_STARTTLS is "maybe": use one of 1, 0, true, false, yes, no',
    ]);
    // a setting that may hold a credential is named, never shown
    const mongo = problemsOf({ NAP_MONGO_URL: 'postgres://nap:hunter2@db' });
    expect(mongo).toEqual(['NAP_MONGO_URL: give a MongoDB connection string, mongodb://… or mongodb+srv://…']);
    expect(problemsOf({ NAP_LDAP_URL: 'ldap://dc1' })).toEqual([expect.stringContaining('NAP_LDAP_USER_BASE is required')]);
    expect(problemsOf({ NAP_LDAP_URL: 'ldap://dc1', NAP_LDAP_USER_BASE: 'dc=x', NAP_LDAP_USER_FILTER: '(uid=alice)' })).toEqual([
      expect.stringContaining('NAP_LDAP_USER_FILTER'),
    ]);
    expect(problemsOf({ NAP_LDAP_URL: 'ldap://dc1', NAP_LDAP_USER_BASE: 'dc=x', NAP_LDAP_BIND_DN: 'cn=svc' })).toEqual([
      expect.stringContaining('NAP_LDAP_BIND_PASSWORD'),
    ]);
    expect(problemsOf({ NAP_LDAP_URL: 'ldap://dc1', NAP_LDAP_USER_BASE: 'dc=x', NAP_LDAP_CA_FILE: '/nonexistent/ca.pem' })).toEqual([
      expect.stringContaining('NAP_LDAP_CA_FILE'),
    ]);
    expect(problemsOf({ NAP_LDAP_URL: 'ldaps://dc1', NAP_LDAP_USER_BASE: 'dc=x', NAP_LDAP_STARTTLS: 'true' })).toEqual([
      expect.stringContaining('NAP_LDAP_STARTTLS'),
    ]);
    expect(problemsOf({ NAP_LDAP_USER_BASE: 'dc=x' })).toEqual([expect.stringContaining('NAP_LDAP_URL is not')]);
    expect(problemsOf({ NAP_LDAP_URL: 'ldap://dc1', NAP_LDAP_USER_BASE: 'dc=x', NAP_LDAP_TIMEOUT_MS: '60000' })).toEqual([
      expect.stringContaining('NAP_LDAP_TIMEOUT_MS'),
    ]);
    expect(problemsOf({ NAP_RADIUS_SERVERS: 'a,b', NAP_RADIUS_SECRET: 's', NAP_RADIUS_TIMEOUT_MS: '5000' })).toEqual([
      expect.stringContaining('NAP_RADIUS_TIMEOUT_MS is 5000 ms for each of 2 servers'),
    ]);
    expect(problemsOf({ NAP_RADIUS_SERVERS: 'radius1:99999', NAP_RADIUS_SECRET: 's' })).toEqual([expect.stringContaining('radius1:99999')]);
    expect(problemsOf({ NAP_RADIUS_SERVERS: 'radius1' })).toEqual([expect.stringContaining('NAP_RADIUS_SECRET')]);
    expect(problemsOf({ NAP_RADIUS_SECRET: 's' })).toEqual([expect.stringContaining('NAP_RADIUS_SERVERS is not')]);
  });
  it('reads NAP_OIDC_* and NAP_SAML_*, which need NAP_PUBLIC_URL', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-config-'));
    writeFileSync(path.join(dir, 'client-secret'), 'oidc-secret\n');
    writeFileSync(path.join(dir, 'idp.xml'), '<EntityDescriptor/>');
    const config = loadConfig({
      ...base,
      NAP_PUBLIC_URL: 'https://nap.corp.example',
      NAP_OIDC_ISSUER: 'https://login.microsoftonline.com/tenant-id/v2.0',
      NAP_OIDC_CLIENT_ID: 'client-id',
      NAP_OIDC_CLIENT_SECRET_FILE: path.join(dir, 'client-secret'),
      NAP_OIDC_SCOPES: 'openid profile email',
      NAP_OIDC_GROUPS_CLAIM: 'roles',
      NAP_OIDC_ADMIN_GROUPS: 'NAP Admins',
      NAP_SAML_IDP_METADATA: path.join(dir, 'idp.xml'),
      NAP_SAML_SP_ENTITY_ID: 'https://nap.corp.example/sso/saml/metadata',
      NAP_SAML_GROUPS_ATTRIBUTE: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
      NAP_SAML_ADMIN_GROUPS: 'nap-admins',
    });
    expect(config.oidc).toEqual({
      type: 'oidc',
      issuer: 'https://login.microsoftonline.com/tenant-id/v2.0',
      clientId: 'client-id',
      clientSecret: 'oidc-secret',
      scopes: ['openid', 'profile', 'email'],
      groupsClaim: 'roles',
      adminGroups: ['NAP Admins'],
    });
    expect(config.saml).toEqual({
      type: 'saml',
      idpMetadata: path.join(dir, 'idp.xml'),
      spEntityId: 'https://nap.corp.example/sso/saml/metadata',
      groupsAttribute: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
      adminGroups: ['nap-admins'],
    });
    expect(loadConfig(base).oidc).toBeUndefined();
  });

  it('stops on a bad OIDC or SAML value, naming it', () => {
    const pub = { NAP_PUBLIC_URL: 'https://nap.example' };
    expect(problemsOf({ ...pub, NAP_OIDC_ISSUER: 'http://idp.example', NAP_OIDC_CLIENT_ID: 'c' })).toEqual([
      expect.stringContaining('NAP_OIDC_ISSUER is "http://idp.example": an identity provider is reached over https'),
    ]);
    expect(problemsOf({ ...pub, NAP_OIDC_ISSUER: 'https://idp.example' })).toEqual([
      expect.stringContaining('NAP_OIDC_CLIENT_ID is required'),
    ]);
    expect(
      problemsOf({ ...pub, NAP_OIDC_ISSUER: 'https://idp.example', NAP_OIDC_CLIENT_ID: 'c', NAP_OIDC_SCOPES: 'profile email' }),
    ).toEqual([expect.stringContaining('NAP_OIDC_SCOPES')]);
    expect(problemsOf({ NAP_OIDC_ISSUER: 'https://idp.example', NAP_OIDC_CLIENT_ID: 'c' })).toEqual([
      expect.stringContaining('NAP_PUBLIC_URL is required with NAP_OIDC_ISSUER'),
    ]);
    expect(problemsOf({ ...pub, NAP_OIDC_CLIENT_ID: 'c' })).toEqual([expect.stringContaining('NAP_OIDC_ISSUER is not')]);
    expect(problemsOf({ ...pub, NAP_SAML_IDP_METADATA: '/nonexistent/idp.xml' })).toEqual([
      expect.stringContaining('NAP_SAML_IDP_METADATA names neither a URL nor a file'),
    ]);
    expect(problemsOf({ ...pub, NAP_SAML_IDP_METADATA: 'ftp://idp.example/metadata' })).toEqual([
      expect.stringContaining('NAP_SAML_IDP_METADATA'),
    ]);
    expect(problemsOf({ ...pub, NAP_SAML_GROUPS_ATTRIBUTE: 'groups' })).toEqual([expect.stringContaining('NAP_SAML_IDP_METADATA is not')]);
  });
});
