export { startPlatform } from './platform';
export type { Platform, PlatformOptions } from './platform';
export { TEST_ADMIN, startTestPlatform } from './test-platform';
export type { TestPlatform, TestPlatformOptions } from './test-platform';
