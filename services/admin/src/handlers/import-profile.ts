import type { Handler } from '@nap/bus';
import type { Profile } from '@nap/contracts';
import { addProfile } from '../steps/profiles';
import type { AdminContext } from '../context';
import { PROFILE_CHANGE, refuseUnlessAdministrator } from '../steps/delegation';

/**
 * `POST /profiles/import`: an exported profile, created inactive; a secret still `********` is
 * refused. Under `profile`, or under `properties` as ipctl sends it: there its profile struct's
 * top-level launchDelay and launchTimeout (0 when it read none) are kept in systemProps when set and that has none of its own.
 */
export function importProfile(svc: AdminContext): Handler<'admin.importProfile'> {
  return async (input, ctx) => {
    refuseUnlessAdministrator(ctx.caller, PROFILE_CHANGE);
    const { profile, properties } = input.body;
    if (profile !== undefined) return addProfile(svc, profile, ctx.caller.username, 'body.profile', ctx);
    const { launchDelay, launchTimeout, ...rest } = properties as NonNullable<typeof properties>;
    const systemProps = { ...rest.systemProps };
    // the struct sends 0 for what it never read: only a value set is kept
    if (launchDelay !== undefined && launchDelay > 0 && systemProps.launchDelay === undefined) systemProps.launchDelay = launchDelay;
    if (launchTimeout !== undefined && launchTimeout > 0 && systemProps.launchTimeout === undefined)
      systemProps.launchTimeout = launchTimeout;
    const imported: Profile = Object.keys(systemProps).length > 0 ? { ...rest, systemProps } : rest;
    return addProfile(svc, imported, ctx.caller.username, 'body.properties', ctx);
  };
}
