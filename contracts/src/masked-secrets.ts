import { AppError } from './errors';
import { SECRET_MASK, isSecretKey, isSecretValue, redactSecrets } from './secrets';
import { isRecord } from './internal/records';

/**
 * Secrets inside values that are kept (a device variable whose value is an object or an array:
 * `gw_http_headers.Authorization`, `creds.password`, `list[0].secret`; a trigger's `formData`), by
 * the platform's one secret policy ({@link isSecretKey}). Such a value is stored twice: as answered,
 * its secrets masked ({@link redactSecrets}), and whole, sealed; what uses it gets the whole value.
 * A client that reads it masked and writes it back keeps the secrets ({@link restoreMasked}).
 */

/** True when `value` is an object or array holding a secret somewhere (what {@link redactSecrets} would mask). */
export function holdsNestedSecret(value: unknown): boolean {
  return value !== null && typeof value === 'object' && redactSecrets(value) !== value;
}

/** True when `value` is an object or array with a member equal to the mask, at any depth. */
export function holdsMask(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsMask);
  if (isRecord(value)) return Object.values(value).some(holdsMask);
  return value === SECRET_MASK;
}

function child(container: unknown, key: string | number): unknown {
  if (typeof key === 'number') return Array.isArray(container) ? (container[key] as unknown) : undefined;
  return isRecord(container) && Object.hasOwn(container, key) ? container[key] : undefined;
}

/**
 * `value` with each `********` that stands where `stored` holds a secret replaced by that secret: a
 * device (or a trigger, `owner`) read, changed and written back keeps the secrets it was answered
 * masked. Members are matched by name, array items by position. A mask where a secret belongs (under
 * a secret name) with no secret stored at that place is refused, naming the member (`at`, e.g.
 * `body.variables.creds`); a mask anywhere else with nothing secret stored there is kept as the text it is.
 */
export function restoreMasked(value: unknown, stored: unknown, at: string, owner = 'the device', underSecret = false): unknown {
  if (value === SECRET_MASK) {
    if (stored !== undefined && stored !== null && (underSecret || isSecretValue(stored))) return stored;
    if (underSecret) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${at} is ${SECRET_MASK}, but ${owner} has no secret stored there to keep: give the secret itself`,
        {
          details: [{ member: at, message: 'give the secret itself' }],
        },
      );
    }
    return value;
  }
  if (Array.isArray(value))
    return value.map((item: unknown, i) => restoreMasked(item, child(stored, i), `${at}[${i}]`, owner, underSecret));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      const restored = restoreMasked(member, child(stored, key), `${at}.${key}`, owner, underSecret || isSecretKey(key));
      // `__proto__` from JSON is an own member: keep it one (an assignment would set the prototype)
      Object.defineProperty(out, key, { value: restored, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
