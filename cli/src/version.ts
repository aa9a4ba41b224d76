// eslint-disable-next-line @typescript-eslint/no-require-imports
const { version } = require('../package.json') as { version: string };

/** The release of `nap`, as `nap --version` prints it. */
export const VERSION = version;

/** What `nap` says it is in each request, so that sessions and the audit trail name it. */
export const USER_AGENT = `nap/${VERSION}`;
