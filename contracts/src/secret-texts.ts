import { AppError } from './errors';
import { TextAutomaton, maskRuns, mergeRuns } from './internal/text-automaton';
import { SECRET_MASK, SECRET_WALK_DEPTH, isSecretKey, isSecretValue } from './secrets';
import { isRecord } from './internal/records';

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
 * How deep {@link findSecrets} and {@link SecretMask.value} look into a value: the policy's depth,
 * below which an object is replaced by the mask whole, as answers show it.
 */
const MAX_DEPTH = SECRET_WALK_DEPTH;

/** Private key material in a text: from its BEGIN line to its END line, or to the end of the text when it was cut. */
const KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;

/** The end of a private key block whose start was cut off: from the start of a text to its first END line. */
const KEY_BLOCK_REST = /^(?:(?!-----BEGIN )[\s\S])*?-----END [A-Z0-9 ]*PRIVATE KEY-----/;

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

/** Adds the secrets of `from` (texts and pairs) to `into`: `into` itself, for a chain of calls. */
export function addFoundSecrets(into: FoundSecrets, from: FoundSecrets): FoundSecrets {
  for (const text of from.texts) into.texts.add(text);
  for (const pair of from.pairs) into.pairs.add(pair);
  return into;
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

/**
 * Most bytes (UTF-8) of secret text that the values one job or one MOP run starts with may hold in
 * all, counting each secret text once ({@link findSecrets}): what masks them holds some 6 to 30
 * characters of forms per character of secret (about 20 bytes each) for as long as the job runs.
 * Thousands of device passwords or a few private keys take tens of kilobytes.
 */
export const MAX_SECRET_TEXT_BYTES = 262_144;

/** No member declared secret (see {@link assertSecretTextWithin}). */
const NO_MEMBERS: ReadonlySet<string> = new Set();

/**
 * Throws `VALIDATION_FAILED` (400) when the secret texts of `value` ({@link findSecrets}) pass
 * `maxBytes` in all, naming the member (under `what`, for example `body.variables`) whose secret
 * passes the limit. `declared` names more members that hold secrets whatever their names, as this
 * names them (`body.variables.vault.pins[0]`: what a schema declares, see `declaredSecretMembers`).
 */
export function assertSecretTextWithin(
  value: unknown,
  what: string,
  maxBytes: number = MAX_SECRET_TEXT_BYTES,
  declared: ReadonlySet<string> = NO_MEMBERS,
): void {
  const seen = new Set<string>();
  let bytes = 0;
  const visit = (item: unknown, member: string, secretNamed: boolean, depth: number): void => {
    const secretName = secretNamed || (declared.size > 0 && declared.has(member));
    const text = typeof item === 'number' && secretName ? String(item) : item;
    if (typeof text === 'string') {
      if (!(secretName || isSecretValue(text)) || text.length < MIN_SECRET_CHARS || seen.has(text)) return;
      seen.add(text);
      bytes += Buffer.byteLength(text, 'utf8');
      if (bytes > maxBytes)
        throw new AppError(
          'VALIDATION_FAILED',
          `${member} takes the secret text of these values past ${maxBytes} bytes in all, the most one job or run may hold (MAX_SECRET_TEXT_BYTES): keep large secrets out of the values a job or run starts with`,
          { details: [{ member, message: `takes the secret text past ${maxBytes} bytes in all` }] },
        );
      return;
    }
    if (depth >= MAX_DEPTH || item === null || typeof item !== 'object') return;
    if (Array.isArray(item)) {
      item.forEach((element, i) => visit(element, `${member}[${i}]`, secretName, depth + 1));
      return;
    }
    for (const name in item) {
      if (Object.hasOwn(item, name))
        visit((item as Record<string, unknown>)[name], `${member}.${name}`, secretName || isSecretKey(name), depth + 1);
    }
  };
  visit(value, what, false, 0);
}

/** A text with the secrets it may hold masked (see {@link secretMask}). */
export interface SecretMask {
  /** `text` with each form of each secret (overlapping ones as one), and any private key block, replaced by the mask; `text` itself when it holds none. */
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
  /**
   * A mask of these secrets and the `more` found too, built for `more` only (those this mask
   * already holds are not searched for twice): one mask kept for what stays the same (a job's
   * variables) and a small one added for what changes (a task's values).
   */
  with(more: FoundSecrets): SecretMask;
}

/** How many causes down {@link SecretMask.error} looks: below them a cause is left out. */
const MAX_CAUSES = 8;

/**
 * What masks the `found` secrets in a text: each secret as it is, JSON-escaped (inside
 * `JSON.stringify` of an object, once or twice), URL-encoded (`encodeURIComponent`, either case of
 * hex), in base64 (with and without padding), and each `user:secret` pair in base64 (an echoed
 * `Authorization: Basic …` header); a text that ends with the start of one of these (cut short) has
 * that end masked too. Private key material is masked whatever was found.
 *
 * Building one costs the characters of those forms, and masking a text its length (plus the
 * longest form for the cut ends), whatever the number of secrets: build one for a set of secrets
 * and keep it while they stay the same ({@link SecretMask.with} for a few more).
 */
export function secretMask(found: FoundSecrets): SecretMask {
  return createMask([], found);
}

/** The forms of some secrets and what finds them (the automaton of the reversed forms, for {@link SecretMask.tail}, made when first asked). */
interface FormSet {
  readonly found: FoundSecrets;
  readonly automaton: TextAutomaton | undefined;
  readonly forms: readonly string[];
  reversed?: TextAutomaton;
}

function createMask(base: readonly FormSet[], found: FoundSecrets): SecretMask {
  const known = (secret: string, of: 'texts' | 'pairs'): boolean => base.some((set) => set.found[of].has(secret));
  const forms = new Set<string>();
  for (const secret of found.texts) if (!known(secret, 'texts')) addForms(forms, secret);
  for (const pair of found.pairs) if (!known(pair, 'pairs')) addBase64(forms, pair);
  const kept = [...forms].filter((f) => f.length >= MIN_SECRET_CHARS);
  const own: FormSet = { found: noSecrets(found), automaton: kept.length === 0 ? undefined : new TextAutomaton(kept), forms: kept };
  const sets = own.automaton === undefined ? base : [...base, own];
  const automatons = sets.flatMap((set) => (set.automaton === undefined ? [] : [set.automaton]));
  const text = (input: string): string => {
    const out = input.includes('-----BEGIN ') ? input.replace(KEY_BLOCK, SECRET_MASK) : input;
    if (automatons.length === 0) return out;
    const masked = maskRuns(
      out,
      mergeRuns(
        automatons.map((automaton) => {
          const runs: number[] = [];
          automaton.cover(out, runs);
          return runs;
        }),
      ),
      SECRET_MASK,
    );
    // a text cut short can end with the start of a form
    let cut = 0;
    for (const automaton of automatons) cut = Math.max(cut, automaton.startAtEnd(masked, MIN_SECRET_CHARS));
    return cut === 0 ? masked : `${masked.slice(0, masked.length - cut)}${SECRET_MASK}`;
  };
  const value = <T>(value: T): T => maskStrings(value, text, 0) as T;
  const error = (err: unknown): unknown => maskError(err, text, value, 0);
  const settle = <T>(work: Promise<T>): Promise<T> =>
    work.then(value, (err: unknown) => {
      throw error(err);
    });
  const tail = (input: string): string => {
    let cut = input.includes('-----END ') ? (KEY_BLOCK_REST.exec(input)?.[0].length ?? 0) : 0;
    for (const set of sets) {
      if (set.automaton === undefined) continue;
      set.reversed ??= new TextAutomaton(set.forms, true);
      cut = Math.max(cut, set.reversed.endAtStart(input, MIN_SECRET_CHARS));
    }
    return cut === 0 ? text(input) : `${SECRET_MASK}${text(input.slice(cut))}`;
  };
  const extend = (more: FoundSecrets): SecretMask => createMask(sets, more);
  return { text, value, error, settle, tail, with: extend };
}

/**
 * What masks each of `texts` as it is, and nothing else, wherever a text holds it: each run of
 * characters that occurrences cover (overlapping ones as one) is replaced by the mask, the text
 * itself returned when it holds none. One pass over a text whatever the number of texts (empty ones
 * are left out): for values a caller declared secret whatever their length, beside a {@link secretMask}.
 */
export function plainTextMask(texts: Iterable<string>): (text: string) => string {
  const patterns = [...new Set(texts)].filter((text) => text.length > 0);
  if (patterns.length === 0) return (text) => text;
  const automaton = new TextAutomaton(patterns);
  return (text) => {
    const runs: number[] = [];
    automaton.cover(text, runs);
    return maskRuns(text, runs, SECRET_MASK);
  };
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
  const uri = uriEncoded(secret);
  if (uri !== undefined) {
    forms.add(uri);
    forms.add(uri.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  }
  addBase64(forms, secret);
}

/** `encodeURIComponent(text)`, or nothing for a text it refuses (a lone surrogate, which no URL can hold as it is). */
function uriEncoded(text: string): string | undefined {
  try {
    return encodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function addBase64(forms: Set<string>, text: string): void {
  const base64 = Buffer.from(text, 'utf8').toString('base64');
  forms.add(base64);
  forms.add(base64.replace(/=+$/, ''));
  forms.add(encodeURIComponent(base64));
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

/** Sets an own member, even one named `__proto__` (as JSON.parse makes it), never the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
