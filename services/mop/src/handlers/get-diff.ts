import type { Handler } from '@nap/bus';
import { diffConfigs } from '../domain/diff';

/** `POST /mop/diff`: line diff of two configurations plus its unified text. */
export function getDiff(): Handler<'mop.getDiff'> {
  return async (input) => diffConfigs(input.body.value_a, input.body.value_b);
}
