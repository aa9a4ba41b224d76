import { SECRET_MASK, findSecrets, isSecretKey, redactSecrets, secretMask } from '@nap/contracts';
import { setOwn } from '@nap/util';

/**
 * What keeps secrets out of the run history: the values of secret variables are masked wherever a
 * run's texts repeat them, on top of the platform's policy for secret-named members.
 */

/** Shortest secret value searched for in texts: shorter ones would mask unrelated text. */
const MIN_SECRET_LENGTH = 3;

/** The values of the secret variables (by the platform's secret policy), longest first. */
function secretValues(variables: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (!isSecretKey(name)) continue;
    for (const v of Array.isArray(value) ? value : [value])
      if ((typeof v === 'string' || typeof v === 'number') && String(v).length >= MIN_SECRET_LENGTH) out.push(String(v));
  }
  return out.sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What finds, at each place of a text, the longest secret value that starts there: a lookahead, so
 * that overlapping values are found too. One pass over a text whatever the number of values: the
 * values and the texts are both the caller's, thousands of each in one run.
 */
function secretFinder(secrets: readonly string[]): RegExp | undefined {
  return secrets.length === 0 ? undefined : new RegExp(`(?=(${secrets.map(escapeRegExp).join('|')}))`, 'g');
}

/** `text` with each run of characters that secret values cover (overlapping ones as one) replaced by the mask. */
function maskText(text: string, finder: RegExp): string {
  let out = '';
  let copied = 0;
  let runStart = -1;
  let runEnd = -1;
  finder.lastIndex = 0;
  for (let m = finder.exec(text); m !== null; m = finder.exec(text)) {
    const end = m.index + (m[1] ?? '').length;
    if (m.index >= runEnd) {
      if (runStart >= 0) {
        out += `${text.slice(copied, runStart)}${SECRET_MASK}`;
        copied = runEnd;
      }
      runStart = m.index;
    }
    runEnd = Math.max(runEnd, end);
    finder.lastIndex = m.index + 1;
  }
  if (runStart < 0) return text;
  return `${out}${text.slice(copied, runStart)}${SECRET_MASK}${text.slice(runEnd)}`;
}

/** `value` with every occurrence of a secret value inside its strings replaced by the mask. */
function maskValues(value: unknown, finder: RegExp | undefined): unknown {
  if (typeof value === 'string') return finder === undefined ? value : maskText(value, finder);
  if (Array.isArray(value)) return value.map((item) => maskValues(item, finder));
  if (value !== null && typeof value === 'object') return maskMembers(Object.entries(value), finder);
  return value;
}

function maskMembers(members: Iterable<[string, unknown]>, finder: RegExp | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, member] of members) setOwn(out, key, maskValues(member, finder));
  return out;
}

/**
 * A copy of `document` with the values of the secret `variables` masked wherever a text holds them
 * (commands, rules, device output) and every secret-named member masked (the contracts' policy).
 * A text holds a secret in the forms the platform's `secretMask` searches for (as it is, JSON-escaped,
 * URL-encoded, in base64, `user:secret` in base64, cut at a text's end), those of secret members at
 * any depth of `variables` too; and as it is from {@link MIN_SECRET_LENGTH} characters.
 */
export function maskSecrets(
  document: Readonly<Record<string, unknown>>,
  variables: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const masked = secretMask(findSecrets(variables)).value(document);
  return redactSecrets(maskMembers(Object.entries(masked), secretFinder(secretValues(variables))));
}
