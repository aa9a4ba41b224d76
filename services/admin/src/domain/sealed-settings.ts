import { AppError, SECRET_MASK, isSecretKey } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { isRecord, ownValue, setOwn } from '@nap/util';

/**
 * Connection settings with their secrets sealed. Every string member whose name the platform's
 * secret policy calls secret (`password`, `passwd`, `token`, `api_key`, `client_secret`, …) is stored
 * as `{ __sealed: <AES-GCM box> }`, answered as `********`, and opened only where a call is made.
 */

type Tree = Record<string, unknown>;

/** How a sealed secret is stored. */
interface SealedValue {
  __sealed: string;
}

function isSealed(v: unknown): v is SealedValue {
  return isRecord(v) && typeof v.__sealed === 'string' && Object.keys(v).length === 1;
}

/**
 * Seals the secrets of `settings`. A secret given as `********` keeps the sealed value at the same
 * place in `current` (an update that did not change it); with nothing to keep, it is refused,
 * naming the member (`at` is the path of `settings` in the request, for the message).
 */
export function sealSettings(settings: Tree, box: SecretBox, current: Tree | undefined, at: string): Tree {
  const out: Tree = {};
  for (const [key, value] of Object.entries(settings)) {
    const here = `${at}.${key}`;
    // own members only: a setting named constructor or __proto__ has nothing stored unless it was given
    const before = current === undefined ? undefined : ownValue(current, key);
    if (isRecord(value) && !isSealed(value)) {
      setOwn(out, key, sealSettings(value, box, isRecord(before) ? before : undefined, here));
    } else if (Array.isArray(value)) {
      // members of objects in arrays (a profile's alarmProps[].community) are sealed the same way, matched by position
      setOwn(
        out,
        key,
        value.map((item: unknown, i) =>
          isRecord(item)
            ? sealSettings(item, box, Array.isArray(before) && isRecord(before[i]) ? before[i] : undefined, `${here}[${i}]`)
            : item,
        ),
      );
    } else if (isSecretKey(key) && typeof value === 'string') {
      if (value === SECRET_MASK) {
        if (!isSealed(before))
          throw new AppError('VALIDATION_FAILED', `${here} is ${SECRET_MASK}, but no secret is stored to keep: give the secret itself`, {
            details: [{ member: here, message: 'give the secret itself' }],
          });
        setOwn(out, key, before);
      } else {
        setOwn(out, key, { __sealed: box.seal(value) });
      }
    } else {
      setOwn(out, key, value);
    }
  }
  return out;
}

/** The settings as answered: sealed secrets become `********`. */
export function maskSettings(settings: Tree): Tree {
  const out: Tree = {};
  for (const [key, value] of Object.entries(settings))
    setOwn(
      out,
      key,
      isSealed(value)
        ? SECRET_MASK
        : isRecord(value)
          ? maskSettings(value)
          : Array.isArray(value)
            ? value.map((v: unknown) => (isRecord(v) ? maskSettings(v) : v))
            : value,
    );
  return out;
}

/** The settings with their secrets opened: only for making a call, never answered, logged or published. */
export function openSettings(settings: Tree, box: SecretBox): Tree {
  const out: Tree = {};
  for (const [key, value] of Object.entries(settings))
    setOwn(
      out,
      key,
      isSealed(value)
        ? box.open(value.__sealed)
        : isRecord(value)
          ? openSettings(value, box)
          : Array.isArray(value)
            ? value.map((v: unknown) => (isRecord(v) ? openSettings(v, box) : v))
            : value,
    );
  return out;
}
