/**
 * NATS subject rules, shared by `MemoryBus` (routing) and both buses (argument checks), so the two
 * implementations accept and match exactly the same subjects.
 *
 * A subject is dot-separated tokens. In a subscription pattern `*` matches exactly one token and `>`
 * (last token only) matches one or more tokens.
 */

const WHITESPACE = /\s/;

/** True when `subject` is a valid subject to publish to: non-empty tokens, no whitespace, no wildcards. */
export function isValidSubject(subject: string): boolean {
  if (subject.length === 0 || WHITESPACE.test(subject)) return false;
  return subject.split('.').every((token) => token.length > 0 && token !== '*' && token !== '>');
}

/** True when `pattern` is a valid subscription subject: non-empty tokens, `*` anywhere, `>` only last. */
export function isValidPattern(pattern: string): boolean {
  if (pattern.length === 0 || WHITESPACE.test(pattern)) return false;
  const tokens = pattern.split('.');
  return tokens.every((token, i) => token.length > 0 && (token !== '>' || i === tokens.length - 1));
}

/** True when the concrete `subject` matches the subscription `pattern` (`*` one token, `>` the rest). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    const token = p[i];
    if (token === '>') return s.length > i;
    if (i >= s.length) return false;
    if (token !== '*' && token !== s[i]) return false;
  }
  return p.length === s.length;
}

/**
 * True when every subject that `filter` matches is also matched by `pattern`, e.g. `nap.evt.job.*`
 * is a subset of `nap.evt.>` but `nap.>` is not. This is the check JetStream applies to a consumer
 * filter against the stream subjects.
 */
export function isSubsetPattern(filter: string, pattern: string): boolean {
  const f = filter.split('.');
  const p = pattern.split('.');
  for (let i = 0; i < p.length; i++) {
    const token = p[i];
    if (token === '>') return f.length > i;
    const ft = f[i];
    if (ft === undefined || ft === '>') return false;
    if (token === '*') continue;
    if (ft === '*' || ft !== token) return false;
  }
  return f.length === p.length;
}
