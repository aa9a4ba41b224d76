export { startPlatform } from './platform';
export type { Platform, PlatformOptions } from './platform';
