/**
 * NATS subject rules, shared by `MemoryBus` (routing) and both buses (argument checks), so the two
 * implementations accept and match exactly the same subjects.
 *
 * A subject is dot-separated tokens. In a subscription pattern `*` matches exactly one token and `>`
 * (last token only) matches one or more tokens.
 *
 * These run for every event and every consumer of the in-memory bus, so a concrete subject is
 * walked in place rather than split; a pattern's tokens are split once and kept (patterns are few:
 * subscriptions, consumer filters, the stream's subjects).
 */

const WHITESPACE = /\s/;
const DOT = 46;
const STAR = 42;
const GT = 62;

/** Split patterns by text; bounded, as a pattern may come from a caller. */
const patternTokens = new Map<string, readonly string[]>();
const MAX_CACHED_PATTERNS = 1_000;

function tokensOf(pattern: string): readonly string[] {
  let tokens = patternTokens.get(pattern);
  if (tokens === undefined) {
    tokens = pattern.split('.');
    if (patternTokens.size >= MAX_CACHED_PATTERNS) patternTokens.clear();
    patternTokens.set(pattern, tokens);
  }
  return tokens;
}

/** True when `subject` is a valid subject to publish to: non-empty tokens, no whitespace, no wildcards. */
export function isValidSubject(subject: string): boolean {
  if (subject.length === 0 || WHITESPACE.test(subject)) return false;
  let start = 0;
  for (let i = 0; i <= subject.length; i++) {
    if (i < subject.length && subject.charCodeAt(i) !== DOT) continue;
    const length = i - start;
    if (length === 0) return false;
    if (length === 1) {
      const c = subject.charCodeAt(start);
      if (c === STAR || c === GT) return false;
    }
    start = i + 1;
  }
  return true;
}

/** True when `pattern` is a valid subscription subject: non-empty tokens, `*` anywhere, `>` only last. */
export function isValidPattern(pattern: string): boolean {
  if (pattern.length === 0 || WHITESPACE.test(pattern)) return false;
  const tokens = pattern.split('.');
  return tokens.every((token, i) => token.length > 0 && (token !== '>' || i === tokens.length - 1));
}

/**
 * The end (exclusive) of the token of `subject` that starts at `start`: the next dot, or the end of
 * the subject.
 */
function tokenEnd(subject: string, start: number): number {
  const dot = subject.indexOf('.', start);
  return dot === -1 ? subject.length : dot;
}

/** True when the token of `subject` from `start` to `end` is `token`. */
function tokenIs(subject: string, start: number, end: number, token: string): boolean {
  return end - start === token.length && subject.startsWith(token, start);
}

/** True when the concrete `subject` matches the subscription `pattern` (`*` one token, `>` the rest). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = tokensOf(pattern);
  // the start of the subject's next token; -1 once every token was taken (a subject ending in a dot ends with an empty token)
  let start = 0;
  for (let i = 0; i < p.length; i++) {
    const token = p[i] as string;
    if (token === '>') return start !== -1;
    if (start === -1) return false;
    const end = tokenEnd(subject, start);
    if (token !== '*' && !tokenIs(subject, start, end, token)) return false;
    start = end === subject.length ? -1 : end + 1;
  }
  return start === -1;
}

/** A test of concrete subjects against one pattern (see {@link subjectMatcher}). */
export type SubjectMatcher = (subject: string) => boolean;

const patternMatchers = new Map<string, SubjectMatcher>();

/**
 * The test {@link subjectMatches} makes with `pattern`, made for the pattern once (and kept, as its
 * tokens are): a pattern without wildcards is compared whole, and one with them first checks the
 * literal tokens before its first wildcard and its last token, which is all it takes to refuse most
 * subjects (an event stream's consumers each filter a few of its subjects) or, for `prefix.>`, to match.
 */
export function subjectMatcher(pattern: string): SubjectMatcher {
  let matcher = patternMatchers.get(pattern);
  if (matcher === undefined) {
    matcher = compileMatcher(pattern);
    if (patternMatchers.size >= MAX_CACHED_PATTERNS) patternMatchers.clear();
    patternMatchers.set(pattern, matcher);
  }
  return matcher;
}

function compileMatcher(pattern: string): SubjectMatcher {
  const tokens = pattern.split('.');
  let literal = 0;
  while (literal < tokens.length && tokens[literal] !== '*' && tokens[literal] !== '>') literal++;
  if (literal === tokens.length) return (subject) => subject === pattern;
  // a subject matching has these tokens first, and more after them
  const prefix = literal === 0 ? '' : `${tokens.slice(0, literal).join('.')}.`;
  if (literal === tokens.length - 1 && tokens[literal] === '>') return (subject) => subject.startsWith(prefix);
  const last = tokens[tokens.length - 1] as string;
  if (last === '*' || last === '>') return (subject) => subject.startsWith(prefix) && subjectMatches(pattern, subject);
  // its last token is the pattern's, after a dot (a wildcard comes before it)
  const suffix = `.${last}`;
  return (subject) => subject.startsWith(prefix) && subject.endsWith(suffix) && subjectMatches(pattern, subject);
}

/**
 * True when every subject that `filter` matches is also matched by `pattern`, e.g. `nap.evt.job.*`
 * is a subset of `nap.evt.>` but `nap.>` is not. This is the check JetStream applies to a consumer
 * filter against the stream subjects.
 */
export function isSubsetPattern(filter: string, pattern: string): boolean {
  const p = tokensOf(pattern);
  let start = 0;
  for (let i = 0; i < p.length; i++) {
    const token = p[i] as string;
    if (token === '>') return start !== -1;
    if (start === -1) return false;
    const end = tokenEnd(filter, start);
    if (end - start === 1 && filter.charCodeAt(start) === GT) return false;
    if (token !== '*') {
      if (end - start === 1 && filter.charCodeAt(start) === STAR) return false;
      if (!tokenIs(filter, start, end, token)) return false;
    }
    start = end === filter.length ? -1 : end + 1;
  }
  return start === -1;
}
