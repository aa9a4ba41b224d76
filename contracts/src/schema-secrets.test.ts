import { SECRET_MASK } from './secrets';
import {
  EVERY,
  declaredSecretMembers,
  declaredSecretPaths,
  findDeclaredSecrets,
  maskDeclaredPaths,
  maskDeclaredSecrets,
  namedSecretPaths,
  unitedSecretPaths,
} from './schema-secrets';
import { assertSecretTextWithin } from './secret-texts';

describe('declaredSecretPaths', () => {
  it('finds format password and writeOnly members through properties, items, additionalProperties and allOf/anyOf/oneOf', () => {
    const schema = {
      type: 'object',
      properties: {
        adminKey: { type: 'string', format: 'password' },
        site: { type: 'string' },
        paloAlto: { type: 'object', properties: { password: { type: 'string', format: 'password' }, host: { type: 'string' } } },
        pins: { type: 'array', items: { type: 'string', writeOnly: true } },
        peers: { type: 'array', items: [{ type: 'object', properties: { psk: { type: 'string', format: 'password' } } }] },
        vault: { type: 'object', additionalProperties: { type: 'string', writeOnly: true } },
      },
      allOf: [{ properties: { apiKey: { format: 'password' } } }],
      oneOf: [{ properties: { adminKey: { format: 'password' } } }],
    };
    expect(declaredSecretPaths(schema)).toEqual([
      ['adminKey'],
      ['paloAlto', 'password'],
      ['pins', EVERY],
      ['peers', EVERY, 'psk'],
      ['vault', EVERY],
      ['apiKey'],
    ]);
  });

  it('finds none in what is not a schema, or a schema that declares none', () => {
    for (const schema of [undefined, null, 'x', [], { type: 'object' }, { properties: { a: { type: 'string', format: 'email' } } }])
      expect(declaredSecretPaths(schema)).toEqual([]);
  });

  it('stops at a bounded depth and number of paths', () => {
    let deep: Record<string, unknown> = { type: 'string', format: 'password' };
    for (let i = 0; i < 100; i++) deep = { properties: { a: deep } };
    expect(declaredSecretPaths(deep)).toEqual([]);
    const many = { properties: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, { format: 'password' }])) };
    expect(declaredSecretPaths(many)).toHaveLength(256);
  });
});

describe('masking declared secrets', () => {
  const paths = [['adminKey'], ['pins', EVERY], ['vault', EVERY]];
  const variables = { adminKey: 'k3y-value', pins: ['1234', 'ab'], vault: { a: 'vault-a', b: 42, c: null }, site: 'ams' };

  it('masks the members at the paths, copying only along them', () => {
    const masked = maskDeclaredPaths(variables, paths);
    expect(masked).toEqual({
      adminKey: SECRET_MASK,
      pins: [SECRET_MASK, SECRET_MASK],
      vault: { a: SECRET_MASK, b: SECRET_MASK, c: null },
      site: 'ams',
    });
    expect(variables.adminKey).toBe('k3y-value');
    const untouched = { site: 'ams', other: { x: 1 } };
    expect(maskDeclaredPaths(untouched, paths)).toBe(untouched);
  });

  it('finds the texts at the paths from four characters on', () => {
    expect([...findDeclaredSecrets(variables, paths).texts].sort()).toEqual(['1234', 'k3y-value', 'vault-a']);
  });

  it('masks every copy of their values elsewhere, in any form, and leaves a thing without secrets as it is', () => {
    const shown = {
      variables,
      tasks: { t1: { variables: { resolved: { line: 'key=k3y-value', encoded: encodeURIComponent('k3y-value'), n: 1234 } } } },
    };
    const masked = maskDeclaredSecrets(shown, 'variables', variables, paths);
    expect(masked.variables.adminKey).toBe(SECRET_MASK);
    expect(masked.tasks.t1.variables.resolved).toEqual({ line: `key=${SECRET_MASK}`, encoded: SECRET_MASK, n: 1234 });
    expect(JSON.stringify(masked)).not.toMatch(/k3y|vault-a/);
    expect(maskDeclaredSecrets(shown, 'variables', variables, [])).toBe(shown);
  });
});

describe('the secret text bound and declared members', () => {
  it('names the declared members as the bound names them, and counts them as secret text', () => {
    const value = { vault: { pins: ['p'.repeat(60), 'q'.repeat(60)] }, site: 's'.repeat(60) };
    const members = declaredSecretMembers(value, [['vault', 'pins', EVERY], ['missing']], 'body.variables');
    expect([...members]).toEqual(['body.variables.vault.pins[0]', 'body.variables.vault.pins[1]']);
    // by name alone nothing here is secret
    expect(() => assertSecretTextWithin(value, 'body.variables', 100)).not.toThrow();
    expect(() => assertSecretTextWithin(value, 'body.variables', 100, members)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        details: [{ member: 'body.variables.vault.pins[1]', message: expect.any(String) }],
      }),
    );
  });
});

describe('namedSecretPaths', () => {
  it('finds the members of secret names that hold a value, and key material under any name, through objects and arrays', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----';
    const value = {
      site: 'ams',
      password: 'p4ss',
      passwordSet: true,
      token: null,
      creds: { username: 'ops', enable_pwd: 'e' },
      hosts: [{ name: 'r1', gw_password: 'x1' }, { name: 'r2' }],
      deploy: { key },
    };
    expect(namedSecretPaths(value)).toEqual([['password'], ['creds', 'enable_pwd'], ['hosts', EVERY, 'gw_password'], ['deploy', 'key']]);
    expect(namedSecretPaths({ site: 'ams' })).toEqual([]);
  });

  it('unites lists of paths, each once', () => {
    expect(unitedSecretPaths([['a'], ['b', EVERY]], [], [['a'], ['c']])).toEqual([['a'], ['b', EVERY], ['c']]);
  });
});
