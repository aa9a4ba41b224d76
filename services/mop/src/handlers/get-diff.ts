import type { Handler } from '@nap/bus';
import { diffConfigs } from '../domain/diff';

/** `POST /mop/diff`: line diff of two configurations plus its unified text. */
export function getDiff(): Handler {
  return (async (input: { body: { value_a: string; value_b: string } }) => diffConfigs(input.body.value_a, input.body.value_b)) as Handler;
}
