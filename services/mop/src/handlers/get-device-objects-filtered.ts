import type { Handler } from '@nap/bus';
import { AppError, deviceFilterSchema, hasCode, isAppError, parseAs } from '@nap/contracts';
import { isRecord } from '@nap/util';
import { listInventory } from '../clients/device-gateway';
import { devicesMatching } from '../domain/device-names';

/**
 * `POST /mop/deviceObjects`: inventory devices matching a name substring, a variable filter, a window.
 * A filter the device gateway refuses (a secret variable, a member it cannot filter by) is 400 naming
 * `body.options.filter`, where this route's caller wrote it, not the gateway's own `body.filter`.
 */
export function getDeviceObjectsFiltered(): Handler<'mop.getDeviceObjectsFiltered'> {
  return async (input, ctx) => {
    const options = input.body.options ?? {};
    // the device gateway takes scalar filter values only; say so in terms of this route's body
    const filter = options.filter === undefined ? undefined : parseAs(deviceFilterSchema, options.filter, 'body.options.filter');
    const inventory = await listInventory(ctx, filter).catch((err: unknown) => {
      throw inOwnTerms(err);
    });
    const found = devicesMatching(inventory, input.body.substring ?? '');
    const start = options.start ?? 0;
    return options.limit === undefined || options.limit === 0 ? found.slice(start) : found.slice(start, start + options.limit);
  };
}

/** The gateway's refusal of its `body.filter`, naming `body.options.filter` instead; any other error as it is. */
function inOwnTerms(err: unknown): unknown {
  if (!hasCode(err, 'VALIDATION_FAILED') || !isAppError(err) || !Array.isArray(err.details)) return err;
  const details: unknown[] = err.details;
  const renamed = details.map((d) =>
    isRecord(d) && typeof d.member === 'string' && (d.member === 'body.filter' || d.member.startsWith('body.filter.'))
      ? { ...d, member: `body.options.filter${d.member.slice('body.filter'.length)}` }
      : d,
  );
  return new AppError(err.code, err.message, { status: err.status, cause: err, details: renamed });
}
