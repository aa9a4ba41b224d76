import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { commandRunner } from '../clients/device-gateway';
import { bootImageOf } from '../domain/boot-image';

/** `POST /mop/GetBootFlash`: the boot image of a device, read from `show version`. */
export function getBootFlash(): Handler<'mop.GetBootFlash'> {
  return async (input, ctx) => {
    const { device } = input.body;
    const response = await commandRunner(ctx)(device, 'show version');
    const image = bootImageOf(response);
    if (image === undefined)
      throw new AppError('UPSTREAM_FAILED', `The "show version" output of device "${device}" names no boot image`, {
        details: { response: response.slice(0, 2_000) },
      });
    return { device, image, response };
  };
}
