import { findSecrets, isSecretKey, plainTextMask, redactSecrets, secretMask } from '@nap/contracts';
import { setOwn } from '@nap/util';

/**
 * What keeps secrets out of the run history: the values of secret variables are masked wherever a
 * run's texts repeat them, on top of the platform's policy for secret-named members.
 */

/** Shortest secret value searched for in texts: shorter ones would mask unrelated text. */
const MIN_SECRET_LENGTH = 3;

/** The values of the secret variables (by the platform's secret policy), from {@link MIN_SECRET_LENGTH} characters. */
function secretValues(variables: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (!isSecretKey(name)) continue;
    for (const v of Array.isArray(value) ? value : [value])
      if ((typeof v === 'string' || typeof v === 'number') && String(v).length >= MIN_SECRET_LENGTH) out.push(String(v));
  }
  return out;
}

/** `value` with every occurrence of a secret value inside its strings replaced by the mask. */
function maskValues(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskValues(item, mask));
  if (value !== null && typeof value === 'object') return maskMembers(Object.entries(value), mask);
  return value;
}

function maskMembers(members: Iterable<[string, unknown]>, mask: (text: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, member] of members) setOwn(out, key, maskValues(member, mask));
  return out;
}

/**
 * What masks the secrets of a run's `variables` in the documents of that run: a copy of a document
 * with the values of the secret variables masked wherever a text holds them (commands, rules,
 * device output) and every secret-named member masked (the contracts' policy). A text holds a
 * secret in the forms the platform's `secretMask` searches for (as it is, JSON-escaped,
 * URL-encoded, in base64, `user:secret` in base64, cut at a text's end), those of secret members at
 * any depth of `variables` too; and as it is from {@link MIN_SECRET_LENGTH} characters. Built once
 * for a run (its variables and its output are masked by the same): building costs the characters
 * of the secrets' forms, a run may hold thousands of them.
 */
export function runSecretsMask(
  variables: Readonly<Record<string, unknown>>,
): (document: Readonly<Record<string, unknown>>) => Record<string, unknown> {
  const forms = secretMask(findSecrets(variables));
  const values = plainTextMask(secretValues(variables));
  return (document) => redactSecrets(maskMembers(Object.entries(forms.value(document)), values));
}
