import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { busCommandRunner } from './devices';

/** Where each family of device names its boot image in `show version`. */
const BOOT_IMAGE_PATTERNS: readonly RegExp[] = [
  /System image file is "([^"]+)"/, // IOS, IOS-XE
  /NXOS image file is:\s*(\S+)/, // NX-OS
  /kickstart image file is:\s*(\S+)/, // older NX-OS
  /Software image:\s*(\S+)/, // EOS
  /Software image version:\s*(\S+)/, // EOS without the path
  /^Junos:\s*(\S+)/m, // Junos
  /System image file is\s*(\S+)/,
];

/** The boot image a `show version` output names, or undefined. */
export function bootImageOf(output: string): string | undefined {
  for (const pattern of BOOT_IMAGE_PATTERNS) {
    const m = pattern.exec(output);
    if (m?.[1] !== undefined) return m[1];
  }
  return undefined;
}

/** `POST /mop/GetBootFlash`: the boot image of a device, read from `show version`. */
export function getBootFlash(): Handler<'mop.GetBootFlash'> {
  return async (input, ctx) => {
    const { device } = input.body;
    const response = await busCommandRunner(ctx)(device, 'show version');
    const image = bootImageOf(response);
    if (image === undefined)
      throw new AppError('UPSTREAM_FAILED', `The "show version" output of device "${device}" names no boot image`, {
        details: { response: response.slice(0, 2_000) },
      });
    return { device, image, response };
  };
}
