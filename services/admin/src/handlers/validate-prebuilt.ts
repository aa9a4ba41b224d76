import type { Handler } from '@nap/bus';
import { validationOf } from '../domain/prebuilts';
import { analysePrebuilt } from '../steps/prebuilts';
import type { AdminContext } from '../context';

/** `PUT /prebuilts/import/validation`: what an import would refuse (errors) and what it would lack (warnings), installing nothing. */
export function validatePrebuilt(svc: AdminContext): Handler<'admin.validatePrebuilt'> {
  return async (input, ctx) => validationOf((await analysePrebuilt(svc, ctx.call, input.body.prebuilt, input.body.options ?? {})).problems);
}
