import { SECRET_MASK, containsSecret, isSecretKey, redactSecrets } from './secrets';

const PEM = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----';

describe('the secret policy', () => {
  it('tells secret member names by name and by suffix, whatever the case, _ or -', () => {
    const secret = [
      'password',
      'Password',
      'gw_password',
      'GW-BECOME-PASS',
      'ansible_ssh_pass',
      'client_secret',
      'x_api_key',
      'token',
      'authorization',
      'PW',
      'pwd',
      'enable_pwd',
    ];
    const plain = ['passwordSet', 'status', 'name', 'tokens_used', 'tasks', 'author', 'power', 'pwr', 'cwd'];
    expect(secret.filter((n) => !isSecretKey(n))).toEqual([]);
    expect(plain.filter((n) => isSecretKey(n))).toEqual([]);
    // asked again (the answers are remembered) and past what is remembered: the same answers
    for (let i = 0; i < 5_000; i++) isSecretKey(`member_${i}`);
    expect(secret.filter((n) => !isSecretKey(n))).toEqual([]);
    expect(plain.filter((n) => isSecretKey(n))).toEqual([]);
    expect(isSecretKey('member_4999_password')).toBe(true);
  });

  it('masks secret members and key material at any depth, keeps the rest, and changes nothing it was given', () => {
    const job = {
      _id: 'j1',
      tasks: { t1: { variables: { incoming: { password: 'p', host: 'h', key: PEM, enabled: true }, outgoing: { token: null } } } },
      list: [{ secret: 7 }, 'plain', PEM],
      passwordSet: true,
    };
    const before = JSON.stringify(job);
    const out = redactSecrets(job);
    expect(out).toEqual({
      _id: 'j1',
      tasks: {
        t1: { variables: { incoming: { password: SECRET_MASK, host: 'h', key: SECRET_MASK, enabled: true }, outgoing: { token: null } } },
      },
      list: [{ secret: SECRET_MASK }, 'plain', SECRET_MASK],
      passwordSet: true,
    });
    expect(JSON.stringify(job)).toBe(before);
    expect(out.tasks.t1).not.toBe(job.tasks.t1);
    expect(containsSecret(job)).toBe(true);
    expect(containsSecret(out.list[1])).toBe(false);
  });

  it('copies only what holds a secret: the rest is shared, the order of members kept', () => {
    const plain = { _id: 'j2', tasks: { t1: { variables: { incoming: { host: 'h' } } } }, list: [1, 'two'] };
    expect(redactSecrets(plain)).toBe(plain);
    const mixed = { a: { x: 1 }, secret: 's', b: [{ y: 2 }], c: { token: 't' }, d: 'plain' };
    const out = redactSecrets(mixed);
    expect(Object.keys(out)).toEqual(['a', 'secret', 'b', 'c', 'd']);
    expect(out).toEqual({ a: { x: 1 }, secret: SECRET_MASK, b: [{ y: 2 }], c: { token: SECRET_MASK }, d: 'plain' });
    expect(out).not.toBe(mixed);
    expect(out.a).toBe(mixed.a);
    expect(out.b).toBe(mixed.b);
    expect(out.c).not.toBe(mixed.c);
    const listed = ['plain', { password: 'p' }, { host: 'h' }];
    const outList = redactSecrets(listed);
    expect(outList).toEqual(['plain', { password: SECRET_MASK }, { host: 'h' }]);
    expect(outList[2]).toBe(listed[2]);
    // a member named __proto__ (JSON.parse makes one) stays a member of the copy, not its prototype
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "password": "p"}') as Record<string, unknown>;
    const masked = redactSecrets(parsed);
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(Object.hasOwn(masked, '__proto__')).toBe(true);
    expect(masked.password).toBe(SECRET_MASK);
  });
});
