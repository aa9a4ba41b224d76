import { AppError } from './errors';
import { SECRET_MASK, isSecretKey, isSecretValue } from './secrets';

/**
 * Masking the secrets a text repeats. The platform's policy (`redactSecrets`) masks the secret
 * members of a document, but an error is a string: an error that quotes the object a task was
 * given (`{"username":"ops","password":"…"}`), or a system's answer that echoes the request (an
 * Authorization header, a form body), holds the secret inside ordinary text. The secrets are taken
 * from values by the policy ({@link findSecrets}: the values a task ran with, a job's variables),
 * or given by whoever holds them (the credentials of an integration, {@link noSecrets}), and
 * searched for in the forms they take in such texts ({@link secretMask}). Node only (base64 by `Buffer`).
 */

/**
 * Secret texts shorter than this are not searched for: a 1–3 character secret (a PIN, `abc`) would
 * mask ordinary words and numbers all over a message, so the message would no longer say what went
 * wrong. Every form of a secret is kept only from this length too.
 */
export const MIN_SECRET_CHARS = 4;

/**
 * How deep {@link findSecrets} and {@link SecretMask.value} look into a value, as deep as the policy's
 * `redactSecrets`: below it an object is replaced by the mask whole, as answers show it.
 */
const MAX_DEPTH = 32;

/** Private key material in a text: from its BEGIN line to its END line, or to the end of the text when it was cut. */
const KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;

/** Member names that hold the user of a credential, normalised (lower case, no `_` or `-`): the first half of HTTP Basic auth. */
const USER_NAMES: ReadonlySet<string> = new Set(['username', 'user', 'login']);

/** Secrets found in values: the secret texts, and the `user:secret` pairs of credential objects (for Basic auth). */
export interface FoundSecrets {
  readonly texts: Set<string>;
  readonly pairs: Set<string>;
}

/** Nothing found yet; `from` copies what another search found. */
export function noSecrets(from?: FoundSecrets): FoundSecrets {
  return { texts: new Set(from?.texts), pairs: new Set(from?.pairs) };
}

/**
 * Adds the secret texts a service holds itself (an integration's password, a device's, a session
 * cookie) to `found`, each from {@link MIN_SECRET_CHARS} characters on (shorter ones and undefined
 * are left out): `found` itself, for a chain of calls.
 */
export function addSecretTexts(found: FoundSecrets, ...texts: (string | undefined)[]): FoundSecrets {
  for (const text of texts) if (text !== undefined && text.length >= MIN_SECRET_CHARS) found.texts.add(text);
  return found;
}

/**
 * Adds to `found` the secrets of `value` by the platform's policy: the strings and numbers held by
 * members with a secret name (at any depth below one: `credentials.username` too), and key material
 * under any name; and for an object that has a user member beside a secret one, `user:secret` (what
 * HTTP Basic auth encodes). Texts shorter than {@link MIN_SECRET_CHARS} are left out.
 */
export function findSecrets(value: unknown, found: FoundSecrets = noSecrets()): FoundSecrets {
  walk(value, false, 0, found);
  return found;
}

function walk(value: unknown, secretName: boolean, depth: number, found: FoundSecrets): void {
  if (typeof value === 'string') {
    if ((secretName || isSecretValue(value)) && value.length >= MIN_SECRET_CHARS) found.texts.add(value);
    return;
  }
  if (typeof value === 'number') {
    if (secretName && String(value).length >= MIN_SECRET_CHARS) found.texts.add(String(value));
    return;
  }
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, secretName, depth + 1, found);
    return;
  }
  if (!isRecord(value)) return;
  let secrets: string[] | undefined;
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue;
    const member = value[name];
    const secret = isSecretKey(name);
    walk(member, secretName || secret, depth + 1, found);
    if (secret && (typeof member === 'string' || typeof member === 'number') && String(member).length >= MIN_SECRET_CHARS)
      (secrets ??= []).push(String(member));
  }
  // the user is looked for only beside a secret: most objects hold none
  if (secrets === undefined) return;
  const user = userOf(value);
  if (user !== undefined) for (const secret of secrets) found.pairs.add(`${user}:${secret}`);
}

/** The user member of a credential object (`username`, `user`, `login`, in any case, with `_` or `-`), as text. */
function userOf(value: Record<string, unknown>): string | undefined {
  for (const name in value) {
    const member = value[name];
    if (
      Object.hasOwn(value, name) &&
      (typeof member === 'string' || typeof member === 'number') &&
      USER_NAMES.has(name.toLowerCase().replace(/[_-]/g, ''))
    )
      return String(member);
  }
  return undefined;
}

/** A text with the secrets it may hold masked (see {@link secretMask}). */
export interface SecretMask {
  /** `text` with each form of each secret, and any private key block, replaced by the mask; `text` itself when it holds none. */
  text(text: string): string;
  /** `value` with {@link text} applied to every string in it, copied only where a string changed (the value itself otherwise). */
  value<T>(value: T): T;
  /**
   * `err` with {@link text} applied to its message and stack, {@link value} to its details (and the
   * other own members of an error that is not an `AppError`), down its chain of causes: an
   * `AppError` stays one, of the same code and status; `err` itself when nothing in it changed.
   */
  error(err: unknown): unknown;
  /** What `work` gives with {@link value} applied, or its failure with {@link error} applied: for an answer built from a system's output. */
  settle<T>(work: Promise<T>): Promise<T>;
  /**
   * `text` that was cut at its start (the end kept of a longer output) with {@link text} applied,
   * and its start masked too when it is the end of a form of a secret (at least
   * {@link MIN_SECRET_CHARS} of it) or the rest of a private key (up to its END line): the cut can
   * fall inside a secret, leaving its end.
   */
  tail(text: string): string;
}

/** How many causes down {@link SecretMask.error} looks: below them a cause is left out. */
const MAX_CAUSES = 8;

/**
 * What masks the `found` secrets in a text: each secret as it is, JSON-escaped (inside
 * `JSON.stringify` of an object, once or twice), URL-encoded (`encodeURIComponent`, either case of
 * hex), in base64 (with and without padding), and each `user:secret` pair in base64 (an echoed
 * `Authorization: Basic …` header); a text that ends with the start of one of these (cut short) has
 * that end masked too. Private key material is masked whatever was found.
 */
export function secretMask(found: FoundSecrets): SecretMask {
  const forms = new Set<string>();
  for (const secret of found.texts) addForms(forms, secret);
  for (const pair of found.pairs) addBase64(forms, pair);
  // longest first: a form that contains another is masked whole
  const ordered = [...forms].filter((f) => f.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
  const replacers = formReplacers(ordered);
  // in code unit order, for the binary search of the cut ends (a run masks thousands of strings with thousands of forms)
  const sorted = [...ordered].sort();
  const longest = ordered[0]?.length ?? 0;
  const text = (input: string): string => {
    let out = input.includes('-----BEGIN ') ? input.replace(KEY_BLOCK, SECRET_MASK) : input;
    if (replacers.length === 0) return out;
    for (const replace of replacers) out = replace(out);
    return maskCutEnd(out, sorted, longest);
  };
  const value = <T>(value: T): T => maskStrings(value, text, 0) as T;
  const error = (err: unknown): unknown => maskError(err, text, value, 0);
  const settle = <T>(work: Promise<T>): Promise<T> =>
    work.then(value, (err: unknown) => {
      throw error(err);
    });
  const tail = (input: string): string => {
    const cut = cutStartLength(input, ordered);
    return cut === 0 ? text(input) : `${SECRET_MASK}${text(input.slice(cut))}`;
  };
  return { text, value, error, settle, tail };
}

/** {@link SecretMask.error}: the code and status classify the error and stay; the cause chain is what logs print, so it is masked too. */
function maskError(err: unknown, text: (input: string) => string, value: <T>(value: T) => T, depth: number): unknown {
  if (!(err instanceof Error)) return value(err);
  const message = text(err.message);
  const stack = err.stack === undefined ? undefined : text(err.stack);
  const hasCause = 'cause' in err && err.cause !== undefined;
  const cause = !hasCause ? undefined : depth + 1 >= MAX_CAUSES ? undefined : maskError(err.cause, text, value, depth + 1);
  let out: Error;
  if (err instanceof AppError) {
    const details = value(err.details);
    if (message === err.message && stack === err.stack && details === err.details && cause === err.cause) return err;
    out = new AppError(err.code, message, {
      status: err.status,
      ...(details === undefined ? {} : { details }),
      ...(cause === undefined ? {} : { cause }),
    });
  } else {
    const members: Record<string, unknown> = {};
    for (const key of Object.keys(err)) if (key !== 'cause') setOwn(members, key, (err as unknown as Record<string, unknown>)[key]);
    const masked = value(members);
    if (message === err.message && stack === err.stack && masked === members && cause === err.cause) return err;
    out = new Error(message, cause === undefined ? undefined : { cause });
    out.name = err.name;
    for (const key of Object.keys(masked)) setOwn(out as unknown as Record<string, unknown>, key, masked[key]);
  }
  if (stack === undefined) delete out.stack;
  else out.stack = stack;
  return out;
}

function addForms(forms: Set<string>, secret: string): void {
  forms.add(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  forms.add(json);
  forms.add(JSON.stringify(json).slice(1, -1));
  const uri = encodeURIComponent(secret);
  forms.add(uri);
  forms.add(uri.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  addBase64(forms, secret);
}

function addBase64(forms: Set<string>, text: string): void {
  const base64 = Buffer.from(text, 'utf8').toString('base64');
  forms.add(base64);
  forms.add(base64.replace(/=+$/, ''));
  forms.add(encodeURIComponent(base64));
}

/**
 * Forms longer than this are replaced as plain text, each on its own: V8 refuses a regular
 * expression holding one long literal ("Regular expression too large", from some tens of thousands
 * of characters), so a long secret (a key bundle, a kubeconfig, a caller's own) made every text
 * throw, with the secret and its forms quoted in the error.
 */
const LONG_FORM_CHARS = 1024;

/** Most characters of source in one regular expression of the shorter forms: the forms beyond go into the next one. */
const MAX_PATTERN_CHARS = 65_536;

/**
 * What replaces `ordered` (longest first) in a text, in that order: each long form as plain text,
 * the others as alternatives of regular expressions of bounded size (a longer form is tried first,
 * so a form that contains another is masked whole).
 */
function formReplacers(ordered: readonly string[]): ((text: string) => string)[] {
  const replacers: ((text: string) => string)[] = [];
  let sources: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (sources.length === 0) return;
    const pattern = new RegExp(sources.join('|'), 'g');
    replacers.push((text) => text.replace(pattern, SECRET_MASK));
    sources = [];
    size = 0;
  };
  for (const form of ordered) {
    if (form.length > LONG_FORM_CHARS) {
      replacers.push((text) => text.replaceAll(form, SECRET_MASK));
      continue;
    }
    const source = escapeRegExp(form);
    if (size + source.length + 1 > MAX_PATTERN_CHARS) flush();
    sources.push(source);
    size += source.length + 1;
  }
  flush();
  return replacers;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `text` whose end is the start of a form (at least {@link MIN_SECRET_CHARS} of it) with that end
 * masked, the longest such end: messages are cut to a length (`…not valid JSON: <the first 80
 * characters>`), and a cut can fall inside a secret, leaving its start. `sorted` holds the forms in
 * code unit order and `longest` is the length of the longest: each end that may be one is looked up
 * by binary search, so a text costs its last characters times the logarithm of the number of forms,
 * not that number (a run's history masks thousands of strings against the forms of thousands of
 * secrets, all of the caller's choosing).
 */
function maskCutEnd(text: string, sorted: readonly string[], longest: number): string {
  for (let i = Math.max(0, text.length - (longest - 1)); text.length - i >= MIN_SECRET_CHARS; i++) {
    if (startsLongerForm(text.slice(i), sorted)) return `${text.slice(0, i)}${SECRET_MASK}`;
  }
  return text;
}

/** Whether a form of `sorted` (in code unit order) is `end` and more: those starting with `end` follow it in that order. */
function startsLongerForm(end: string, sorted: readonly string[]): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) < end) low = middle + 1;
    else high = middle;
  }
  // the first form from `end` on is `end` itself (a whole form) or the first longer one
  for (const form of sorted.slice(low, low + 2)) if (form.length > end.length && form.startsWith(end)) return true;
  return false;
}

/** The end of a private key block whose start was cut off: from the start of a text to its first END line. */
const KEY_BLOCK_REST = /^(?:(?!-----BEGIN )[\s\S])*?-----END [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * How many characters at the start of `text` are the end of a form (at least {@link MIN_SECRET_CHARS}
 * of it, the longest such end) or the rest of a private key block: 0 when none.
 */
function cutStartLength(text: string, forms: readonly string[]): number {
  let cut = text.includes('-----END ') ? (KEY_BLOCK_REST.exec(text)?.[0].length ?? 0) : 0;
  for (const form of forms) {
    // a whole form is masked by the text rule; its ends, from the longest, are what a cut leaves
    for (let from = 1; form.length - from >= MIN_SECRET_CHARS && form.length - from > cut; from++) {
      if (text.startsWith(form.slice(from))) {
        cut = form.length - from;
        break;
      }
    }
  }
  return cut;
}

function maskStrings(value: unknown, text: (input: string) => string, depth: number): unknown {
  if (typeof value === 'string') return text(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return SECRET_MASK;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const masked = maskStrings(item, text, depth + 1);
      if (masked !== item) out ??= value.slice(0, i);
      if (out !== undefined) out[i] = masked;
    }
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const member = value[key];
    const masked = maskStrings(member, text, depth + 1);
    if (masked !== member && out === undefined) {
      out = {};
      for (const k in value) {
        if (k === key) break;
        if (Object.hasOwn(value, k)) setOwn(out, k, value[k]);
      }
    }
    if (out !== undefined) setOwn(out, key, masked);
  }
  return out ?? value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own member, even one named `__proto__` (as JSON.parse makes it), never the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
