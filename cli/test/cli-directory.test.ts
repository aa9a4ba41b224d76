import { rmSync } from 'node:fs';
import {
  LDAP_SERVICE_DN,
  LDAP_SERVICE_PASSWORD,
  LDAP_SUFFIX,
  SLAPD,
  loadDirectory,
  serverPresent,
  startSlapd,
} from '../../test/support/directory-servers';
import type { Slapd } from '../../test/support/directory-servers';
import type { NapHome } from './support/nap';
import { createHome, napInProcess, profileSection } from './support/nap';
import type { Platform } from './support/platform';
import { startPlatform } from './support/platform';

/**
 * Accounts and groups a directory brought in (`provenance`: the sign-in method's name) are not
 * exported or copied: the directory brings them in on every platform, and a local account of that
 * username on the target would be asked before the directory. A real OpenLDAP (slapd) and a
 * platform signing in with it; a missing slapd fails under CI=true.
 */
const present = serverPresent(SLAPD, 'slapd ldap-utils');
const suite = present ? describe : describe.skip;

let slapd: Slapd;
let platform: Platform;
let home: NapHome;

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => napInProcess(args, { env: { ...home.env, ...env } });

suite('accounts and groups of a directory', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    await loadDirectory(slapd, [{ uid: 'dana', password: 'dana-pass', givenName: 'Dana', sn: 'Net', mail: 'dana@nap.test' }], {
      netops: ['dana'],
    });
    platform = await startPlatform('directory-admin-password', {
      NAP_LDAP_URL: slapd.url,
      NAP_LDAP_BIND_DN: LDAP_SERVICE_DN,
      NAP_LDAP_BIND_PASSWORD: LDAP_SERVICE_PASSWORD,
      NAP_LDAP_USER_BASE: `ou=people,${LDAP_SUFFIX}`,
    });
    home = createHome();
    home.writeIpctlConfig(profileSection('default', platform.port, platform.password));
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await slapd?.stop();
    if (home !== undefined) rmSync(home.home, { recursive: true, force: true });
  });

  it('refuses to export or copy them, in one line naming the sign-in method, while local ones export', async () => {
    // dana signs in once: the platform makes her account and her group, with provenance
    const signedIn = await run(['api', 'get', '/whoami'], { NAP_URL: platform.url, NAP_USERNAME: 'dana', NAP_PASSWORD: 'dana-pass' });
    // a person with no role yet is signed in and may ask who they are, with no role
    expect(signedIn).toMatchObject({ code: 0 });
    expect(signedIn.json<{ username: string; roles: string[] }>()).toMatchObject({ username: 'dana', roles: [] });
    const account = (await run(['get', 'account', 'dana', '-o', 'json'])).json<{ provenance: string }>();
    expect(account.provenance).toEqual(expect.any(String));
    const group = (await run(['get', 'group', 'netops', '-o', 'json'])).json<{ provenance: string }>();
    expect(group.provenance).toBe(account.provenance);

    for (const [args, what] of [
      [['export', 'account', 'dana'], 'account "dana"'],
      [['copy', 'account', 'dana', '--to', 'default'], 'account "dana"'],
      [['export', 'group', 'netops'], 'group "netops"'],
    ] as const) {
      const res = await run([...args]);
      expect({ args, code: res.code, stdout: res.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(res.stderr).toBe(
        `nap: ${what} on ${platform.url} comes from sign-in method "${account.provenance}": the directory brings it in on each platform, and a local copy would take its name from the directory, so nap does not export it\n`,
      );
    }
    const local = await run(['export', 'account', 'admin']);
    expect(local.json()).toEqual({ username: 'admin', groups: ['admins'], inactive: false });
  });
});
