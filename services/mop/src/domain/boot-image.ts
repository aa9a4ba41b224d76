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
