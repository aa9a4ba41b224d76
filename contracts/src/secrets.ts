/**
 * The platform's one secret policy. Which member names hold secrets is decided here and nowhere
 * else: the logger redacts by it, device variables are sealed and masked by it, run histories and
 * job documents mask by it.
 *
 * A member holds a secret when its name, compared without case, `_` or `-`, is one of the secret
 * names (`password`, `pw`, `token`, `authorization`, …) or ends with a secret suffix (`gw_password`, `enable_pwd`,
 * `gw_become_pass`, `gw_ssh_private_key`, `ansible_ssh_pass`, `client_secret`, `x_api_key`), or when
 * its value is private key material, whatever the name.
 */

/** What a secret is answered, logged and shown as. */
export const SECRET_MASK = '********';

/** Names that are secrets as a whole (normalised: lower case, no `_` or `-`). */
const SECRET_NAMES: ReadonlySet<string> = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'secret',
  'token',
  'passwd',
  'password',
  'passphrase',
  // the short forms people give a password variable (`PW`, `pwd`)
  'pw',
  'pwd',
  'community',
  'credential',
  'credentials',
]);

/** Suffixes that make a name a secret (normalised as above). */
const SECRET_SUFFIXES: readonly string[] = [
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'becomepass',
  'sshpass',
  'secret',
  'token',
  'privatekey',
  'apikey',
  'passwordhash',
  'community',
];

const KEY_MATERIAL = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

function normalise(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

function decideSecretKey(name: string): boolean {
  const n = normalise(name);
  if (SECRET_NAMES.has(n)) return true;
  for (const suffix of SECRET_SUFFIXES) if (n.endsWith(suffix)) return true;
  return false;
}

/**
 * Names already decided: every member of every job, response and log line asks, and the same few
 * hundred names come back. Bounded, as names also come from data.
 */
const decidedKeys = new Map<string, boolean>();
const MAX_DECIDED_KEYS = 4_096;

/** True when a member of this name holds a secret (see the module comment for the rule). */
export function isSecretKey(name: string): boolean {
  let secret = decidedKeys.get(name);
  if (secret === undefined) {
    secret = decideSecretKey(name);
    if (decidedKeys.size >= MAX_DECIDED_KEYS) decidedKeys.clear();
    decidedKeys.set(name, secret);
  }
  return secret;
}

/** True when a value is private key material (PEM), whatever member holds it. */
export function isSecretValue(value: unknown): boolean {
  return typeof value === 'string' && KEY_MATERIAL.test(value);
}

/** True when the member `name` with this value holds a secret: by name, or because the value is key material. */
export function isSecret(name: string, value: unknown): boolean {
  return isSecretKey(name) || isSecretValue(value);
}

/**
 * Deepest level the secret policy walks a value ({@link redactSecrets}, the search for secret texts,
 * the sealing of jobs): below it, an object is masked (or sealed) whole. One number, so that what
 * one walk finds the others reach.
 */
export const SECRET_WALK_DEPTH = 32;

/**
 * `value` with every secret replaced by {@link SECRET_MASK}: members whose name is secret (strings,
 * numbers and objects, which are masked whole; `null`, `undefined` and booleans say nothing secret
 * and stay) and key material anywhere. Copy on write: an array or object holding a secret is
 * copied (as far down as the secret), one holding none is returned as it is, shared with `value`
 * (a job answered, an event streamed: most hold no secret, and a copy of each cost as much as the
 * answer). `value` is not changed; change the result only where a secret made a copy.
 */
export function redactSecrets<T>(value: T): T {
  return redact(value, 0) as T;
}

function redact(value: unknown, depth: number): unknown {
  if (isSecretValue(value)) return SECRET_MASK;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= SECRET_WALK_DEPTH) return SECRET_MASK;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const masked = redact(item, depth + 1);
      if (masked !== item) out ??= value.slice(0, i);
      if (out !== undefined) out[i] = masked;
    }
    return out ?? value;
  }
  if (!isPlainObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  // for…in rather than Object.entries: no [key, member] pair made for every member of every job answered
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const member = (value as Record<string, unknown>)[key];
    const masked = holdsValue(member) && isSecretKey(key) ? SECRET_MASK : redact(member, depth + 1);
    if (masked !== member && out === undefined) out = copyBefore(value as Record<string, unknown>, key);
    if (out !== undefined) setOwn(out, key, masked);
  }
  return out ?? value;
}

/** The own members of `value` that come before `key`, in a new object (the start of a copy on write). */
function copyBefore(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in value) {
    if (k === key) break;
    if (Object.hasOwn(value, k)) setOwn(out, k, value[k]);
  }
  return out;
}

/** Sets an own member, `__proto__` included (JSON.parse makes one; an assignment would set the prototype instead). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A value a secret could be: not null, undefined or a boolean (`passwordSet: true` tells nothing). */
function holdsValue(value: unknown): boolean {
  return value !== null && value !== undefined && typeof value !== 'boolean';
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** True when `value` holds a secret anywhere: a member with a secret name holding a value, or key material. */
export function containsSecret(value: unknown, depth = 0): boolean {
  if (isSecretValue(value)) return true;
  if (value === null || typeof value !== 'object' || depth >= SECRET_WALK_DEPTH) return false;
  if (Array.isArray(value)) return value.some((item) => containsSecret(item, depth + 1));
  for (const [key, member] of Object.entries(value)) {
    if (holdsValue(member) && isSecretKey(key)) return true;
    if (containsSecret(member, depth + 1)) return true;
  }
  return false;
}
