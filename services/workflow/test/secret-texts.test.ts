import { AppError, SECRET_MASK, addSecretTexts, findSecrets, noSecrets, secretMask } from '@nap/contracts';

/**
 * The secrets of values by the platform's policy, and the forms a text holds them in (as they are,
 * JSON-escaped, URL-encoded, base64, HTTP Basic auth), masked in error texts and the values a failed
 * task keeps.
 */

const PASSWORD = 'Pa"ss/w@rd 9+\\x';

function mask(...values: unknown[]) {
  const found = noSecrets();
  for (const value of values) findSecrets(value, found);
  return secretMask(found);
}

describe('findSecrets', () => {
  it('finds the strings and numbers of secret members at any depth, everything below a secret name, and key material anywhere', () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----';
    const found = findSecrets({
      creds: { username: 'ops', password: PASSWORD },
      list: [{ api_token: 'tok-123456' }, { community: 424242 }],
      credentials: { user: 'netops', pass: 'p4ssphrase' },
      note: key,
      name: 'not a secret',
    });
    expect([...found.texts].sort()).toEqual([PASSWORD, '424242', 'netops', 'p4ssphrase', 'tok-123456', key].sort());
    // Basic auth pairs: a user member beside a secret one
    expect([...found.pairs]).toEqual([`ops:${PASSWORD}`]);
  });

  it('leaves out texts shorter than 4 characters, which would mask ordinary words', () => {
    const found = findSecrets({ password: 'abc', pin: 1, token: 123, username: 'u', secret: 'abcd' });
    expect([...found.texts]).toEqual(['abcd']);
    expect([...found.pairs]).toEqual(['u:abcd']);
    expect(mask({ password: 'abc' }).text('abc is the password: abc')).toBe('abc is the password: abc');
  });

  it('adds to what another search found without changing it', () => {
    const first = findSecrets({ password: 'first-secret' });
    const both = findSecrets({ token: 'second-secret' }, noSecrets(first));
    expect([...first.texts]).toEqual(['first-secret']);
    expect([...both.texts]).toEqual(['first-secret', 'second-secret']);
  });
});

describe('addSecretTexts', () => {
  it('adds the texts a service holds from 4 characters on, leaving out shorter ones and undefined', () => {
    const found = addSecretTexts(noSecrets(), 'hunter22', undefined, 'abc', 'abcd');
    expect([...found.texts]).toEqual(['hunter22', 'abcd']);
    expect(secretMask(found).text('abc hunter22')).toBe(`abc ${SECRET_MASK}`);
  });
});

describe('secretMask', () => {
  const m = mask({ account: { username: 'ops-admin', password: PASSWORD } });

  it.each([
    ['as it is', PASSWORD],
    ['JSON-escaped', JSON.stringify(PASSWORD).slice(1, -1)],
    ['JSON-escaped twice (JSON text inside JSON)', JSON.stringify(JSON.stringify(PASSWORD).slice(1, -1)).slice(1, -1)],
    ['URL-encoded', encodeURIComponent(PASSWORD)],
    ['URL-encoded, lower-case hex', encodeURIComponent(PASSWORD).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())],
    ['in base64', Buffer.from(PASSWORD).toString('base64')],
    ['in base64 without padding', Buffer.from(PASSWORD).toString('base64').replace(/=+$/, '')],
    ['as HTTP Basic auth with its user', Buffer.from(`ops-admin:${PASSWORD}`).toString('base64')],
  ])('masks the secret %s, keeping the text around it', (_form, form) => {
    expect(m.text(`before ${form} after`)).toBe(`before ${SECRET_MASK} after`);
  });

  it('masks a request echoed as JSON so that the text still names the member', () => {
    const echoed = `401 for ${JSON.stringify({ username: 'ops-admin', password: PASSWORD })}`;
    expect(m.text(echoed)).toBe(`401 for {"username":"ops-admin","password":"${SECRET_MASK}"}`);
  });

  it('masks the start of a secret that ends a text (the text was cut inside it), and nothing when the text ends otherwise', () => {
    expect(m.text(`output is ${PASSWORD.slice(0, 6)}`)).toBe(`output is ${SECRET_MASK}`);
    expect(m.text(`output is ${PASSWORD.slice(0, 3)}`)).toBe(`output is ${PASSWORD.slice(0, 3)}`);
    expect(m.text('output is Pa')).toBe('output is Pa');
  });

  it('finds the cut end among thousands of forms, the longest end of any of them', () => {
    const passwords = Array.from({ length: 3000 }, (_, i) => `Pw-${String(i).padStart(5, '0')}-tail`);
    const many = mask({ password: passwords });
    expect(many.text('login Pw-01234-ta')).toBe(`login ${SECRET_MASK}`);
    expect(many.text('login Pw-02999')).toBe(`login ${SECRET_MASK}`);
    // the start of a form in base64, and the start of no form
    expect(many.text(`auth ${Buffer.from('Pw-00007-tail').toString('base64').slice(0, 9)}`)).toBe(`auth ${SECRET_MASK}`);
    expect(many.text('login Pw-03000')).toBe('login Pw-03000');
    expect(many.text('login Pw-0123x')).toBe('login Pw-0123x');
    // a form's end that is itself the start of a longer one is masked from where the longer one starts
    expect(mask({ password: 'abcd-abcd-xyz' }).text('see abcd-abcd-x')).toBe(`see ${SECRET_MASK}`);
  });

  it('masks a secret of tens of thousands of characters, which no regular expression takes as one literal', () => {
    // V8 refused the expression ("Regular expression too large", quoting the secret's forms): every text threw
    const long = 'ab'.repeat(20_000);
    const m = mask({ password: long, user: 'ops' });
    expect(m.text(`was ${long} then`)).toBe(`was ${SECRET_MASK} then`);
    expect(m.text(`auth ${Buffer.from(long).toString('base64')}.`)).toBe(`auth ${SECRET_MASK}.`);
    expect(m.text(`cut ${long.slice(0, 5000)}`)).toBe(`cut ${SECRET_MASK}`);
    expect(m.text('nothing secret')).toBe('nothing secret');
  });

  it('masks overlapping occurrences of secrets as one, leaving no end of either in clear', () => {
    // one pattern after another masked the first and left the end of the second: "ac" of "abac", "=é%" of "==é%"
    expect(mask({ password: 'abab', token: 'abac' }).text('x ababac y')).toBe(`x ${SECRET_MASK} y`);
    const accented = mask({ password: '==é%' });
    expect(accented.text(`${Buffer.from('==é%').toString('base64')}=é% and ==é%`)).toBe(`${SECRET_MASK} and ${SECRET_MASK}`);
    // a secret masked by code units: a combining mark after it changes nothing
    expect(mask({ password: 'cafe-au-lait' }).text('ordered cafe-au-lait\u0301 twice')).toBe(`ordered ${SECRET_MASK}\u0301 twice`);
  });

  it('masks secrets that start with a character beyond Latin-1, beside ones that do not, whole, cut at the end and at the start', () => {
    // the first code units of those take another way through the matcher than ASCII ones
    const m = mask({ password: ['€uro-Passwort', '密码是秘密的', 'plain-ascii-1'] });
    expect(m.text('a €uro-Passwort b 密码是秘密的 c plain-ascii-1 d')).toBe(`a ${SECRET_MASK} b ${SECRET_MASK} c ${SECRET_MASK} d`);
    expect(m.text('cut €uro-Pa')).toBe(`cut ${SECRET_MASK}`);
    expect(m.text('cut 密码是秘')).toBe(`cut ${SECRET_MASK}`);
    expect(m.tail('码是秘密的 rest')).toBe(`${SECRET_MASK} rest`);
    expect(m.text('€ and 密 alone')).toBe('€ and 密 alone');
  });

  it('masks a secret no URL can hold (a lone surrogate) in its other forms instead of throwing', () => {
    const odd = 'pass\ud800word';
    const m = mask({ password: odd });
    expect(m.text(`got ${odd}.`)).toBe(`got ${SECRET_MASK}.`);
    expect(m.text(`got ${Buffer.from(odd).toString('base64')}.`)).toBe(`got ${SECRET_MASK}.`);
  });

  it('masks the end of a secret that starts a text cut at its start (tail), the longest end of thousands of forms', () => {
    const passwords = Array.from({ length: 3000 }, (_, i) => `Pw-${String(i).padStart(5, '0')}-tail`);
    const many = mask({ password: passwords });
    expect(many.tail('1234-tail rest Pw-00001-tail')).toBe(`${SECRET_MASK} rest ${SECRET_MASK}`);
    expect(many.tail('-tail rest')).toBe(`${SECRET_MASK} rest`);
    expect(many.tail('tai rest')).toBe('tai rest');
    expect(many.tail(`${Buffer.from('Pw-00007-tail').toString('base64').slice(4)} rest`)).toBe(`${SECRET_MASK} rest`);
  });

  it('adds secrets to a mask (with): it masks as one mask of all of them would, and the first mask stays as it was', () => {
    const first = mask({ password: 'abab-1234' });
    const both = first.with(findSecrets({ token: '1234-wxyz', password: 'abab-1234' }));
    const all = mask({ password: 'abab-1234', token: '1234-wxyz' });
    for (const text of [
      'x abab-1234-wxyz y',
      'x 1234-wxyz',
      'cut abab-12',
      'cut 1234-wx',
      `b64 ${Buffer.from('1234-wxyz').toString('base64')}`,
    ])
      expect(both.text(text)).toBe(all.text(text));
    expect(both.tail('234-wxyz rest')).toBe(`${SECRET_MASK} rest`);
    expect(first.text('x 1234-wxyz')).toBe('x 1234-wxyz');
  });

  it('masks private key material whatever was found, keeping the rest of the text', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----';
    expect(mask().text(`bad key ${key} given`)).toBe(`bad key ${SECRET_MASK} given`);
    // cut before its end: masked to the end of the text
    expect(mask().text(`bad key ${key.slice(0, 50)}`)).toBe(`bad key ${SECRET_MASK}`);
  });

  it('answers a text without a secret as it is, also when nothing was found', () => {
    expect(mask().text('plain error')).toBe('plain error');
    expect(m.text('plain error')).toBe('plain error');
  });

  it('masks the strings of a value, copying only what changed and leaving the value given as it was', () => {
    const value = { status: 401, body: `rejected ${PASSWORD}`, headers: { a: 'b' }, list: ['x', PASSWORD] };
    const masked = m.value(value);
    expect(masked).toEqual({ status: 401, body: `rejected ${SECRET_MASK}`, headers: { a: 'b' }, list: ['x', SECRET_MASK] });
    expect(masked.headers).toBe(value.headers);
    expect(value.body).toBe(`rejected ${PASSWORD}`);
    const clean = { a: ['b', { c: 'd' }] };
    expect(m.value(clean)).toBe(clean);
  });

  it('keeps a member named __proto__ as an own member of the copy', () => {
    const value = JSON.parse(`{"__proto__": {"x": 1}, "msg": ${JSON.stringify(PASSWORD)}}`) as Record<string, unknown>;
    const masked = m.value(value);
    expect(Object.hasOwn(masked, '__proto__')).toBe(true);
    expect(masked.msg).toBe(SECRET_MASK);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('masks an error: an AppError keeps its code and status, other errors their name and members, down the causes', () => {
    const low = Object.assign(new Error(`login failed: ${PASSWORD}`), { level: 'client-authentication', echoed: PASSWORD });
    const err = new AppError('DEVICE_COMMAND_FAILED', `device said ${PASSWORD}`, {
      status: 502,
      details: { output: PASSWORD, n: 1 },
      cause: low,
    });
    const masked = m.error(err) as AppError;
    expect(masked).toBeInstanceOf(AppError);
    expect([masked.code, masked.status, masked.message, masked.details]).toEqual([
      'DEVICE_COMMAND_FAILED',
      502,
      `device said ${SECRET_MASK}`,
      { output: SECRET_MASK, n: 1 },
    ]);
    expect(masked.stack).not.toContain(PASSWORD);
    const cause = masked.cause as Error & { level: string; echoed: string };
    expect([cause.name, cause.message, cause.level, cause.echoed]).toEqual([
      'Error',
      `login failed: ${SECRET_MASK}`,
      'client-authentication',
      SECRET_MASK,
    ]);
    expect(cause.stack).not.toContain(PASSWORD);
    // the error given is left as it was; one without a secret is answered as it is
    expect(err.message).toBe(`device said ${PASSWORD}`);
    const clean = new AppError('DEVICE_TIMEOUT', 'no answer', { cause: new Error('timed out') });
    expect(m.error(clean)).toBe(clean);
    expect(m.error(`said ${PASSWORD}`)).toBe(`said ${SECRET_MASK}`);
  });
});
