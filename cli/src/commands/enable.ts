import type { Context } from '../context';
import { eachItem } from '../each';
import { CliError, EXIT, usage } from '../errors';
import type { Client } from '../http/client';
import type { ApiRequest } from '../http/client';
import { platformMessage } from '../http/client';
import type { Doc } from '../resources/documents';
import { isDoc, unwrap } from '../resources/documents';
import type { Found } from '../resources/lookup';
import { mustFind, routePath } from '../resources/lookup';
import type { ResourceDef, ToggleSpec } from '../resources/registry';
import { RESOURCES, isoTime } from '../resources/registry';
import { label, resourceOf } from './assets';

/** What `nap enable` and `nap disable` take: the resources the platform can switch on and off. */
export function toggleable(): ResourceDef[] {
  return RESOURCES.filter((r) => r.toggle !== undefined);
}

/**
 * Sets one document's state: nothing is sent when it is already in it. Answers the document as it
 * now is (the platform's answer when it changed) and whether it changed.
 */
async function setEnabled(
  client: Client,
  def: ResourceDef,
  spec: ToggleSpec,
  found: Found,
  enabled: boolean,
): Promise<{ doc: Doc; changed: boolean }> {
  if (isEnabled(spec, found.doc) === enabled) return { doc: found.doc, changed: false };
  const key = spec.key === 'id' ? found.id : found.name;
  if (key === undefined) throw new CliError(`${label(def, found.doc)} has no ${spec.key} to address it by`, EXIT.FAILED);
  const path = routePath(spec.route, key);
  const answered = await send(
    client,
    def,
    found,
    { method: spec.route.method, path, json: spec.body(enabled) },
    enabled ? 'enabled' : 'disabled',
  );
  return { doc: isDoc(answered) ? answered : { ...found.doc, ...spec.body(enabled) }, changed: true };
}

function isEnabled(spec: ToggleSpec, doc: Doc): boolean {
  return spec.enabledOf === undefined ? doc.enabled !== false : spec.enabledOf(doc);
}

/** Sends a change of one document; its answer, or the platform's reason it was `not <done>` (a role the account lacks: exit 5). */
async function send(client: Client, def: ResourceDef, found: Found, req: ApiRequest, done: string): Promise<unknown> {
  const res = await client.send(req);
  if (res.status === 401) throw client.failure(req, res);
  if (res.status >= 400) {
    const { code, message } = platformMessage(res.body);
    throw new CliError(
      `${label(def, found.doc)} not ${done}: ${message} (${res.status}${code === undefined ? '' : ` ${code}`})`,
      res.status === 403 ? EXIT.AUTH : EXIT.FAILED,
    );
  }
  return unwrap(res.body);
}

/**
 * Does `act` to each name (or id), looked up as every command looks one up, by the rule of
 * {@link eachItem}: a name that fails (not found, several of that name, refused) is said on stderr
 * and the others are still done; a refusal of the credentials or roles, or an unreachable platform,
 * ends the command at once.
 */
async function eachNamed(
  ctx: Context,
  def: ResourceDef,
  names: string[],
  done: string,
  act: (client: Client, found: Found) => Promise<{ doc: Doc; line: string }>,
): Promise<void> {
  const client = ctx.client();
  const docs: Doc[] = [];
  await eachItem(
    ctx,
    names,
    { plural: def.plural, done, item: 'name' },
    async (name) => {
      const { doc, line } = await act(client, await mustFind(client, def, name));
      docs.push(doc);
      if (ctx.format === 'human') ctx.out(line);
    },
    () => {
      if (ctx.format !== 'human' && docs.length > 0) ctx.print(names.length === 1 ? docs[0] : docs, () => '');
    },
  );
}

/** `nap enable|disable <resource> <names...>`: each named document switched on or off (a trigger, an account). */
export async function enableCommand(ctx: Context, enabled: boolean, word: string, names: string[]): Promise<void> {
  const verb = enabled ? 'enable' : 'disable';
  const def = resourceOf(word);
  const spec = def.toggle;
  if (spec === undefined) {
    const can = toggleable().map((r) => r.plural);
    throw usage(`nap ${verb} ${def.singular}: ${def.plural} cannot be enabled or disabled; what can: ${can.join(', ')}`);
  }
  await eachNamed(ctx, def, names, enabled ? 'enabled' : 'disabled', async (client, found) => {
    const { doc, changed } = await setEnabled(client, def, spec, found, enabled);
    return {
      doc,
      line: `${label(def, doc)} ${changed ? '' : 'was already '}${enabled ? 'enabled' : 'disabled'}${spec.after?.(doc, changed) ?? ''}`,
    };
  });
}

/**
 * `nap unlock <accounts...>`: the failed logins counted for each account forgotten, so that its
 * next login is not answered 429 `LOGIN_THROTTLED`; what was counted is said first.
 */
export async function unlockCommand(ctx: Context, names: string[]): Promise<void> {
  const def = resourceOf('account');
  await eachNamed(ctx, def, names, 'unlocked', async (client, found) => {
    if (found.id === undefined) throw new CliError(`${label(def, found.doc)} has no id to address it by`, EXIT.FAILED);
    const path = routePath({ method: 'POST', path: '/user-management/accounts/:accountId/unlock' }, found.id);
    await send(client, def, found, { method: 'POST', path }, 'unlocked');
    const { failedLogins, lockedUntil } = found.doc;
    const counted =
      typeof failedLogins === 'number' && failedLogins > 0
        ? `${failedLogins} failed login${failedLogins === 1 ? '' : 's'} forgotten${typeof lockedUntil === 'string' ? ` (it was locked until ${isoTime(lockedUntil) ?? lockedUntil})` : ''}`
        : 'no failed logins were counted';
    return {
      doc: { ...found.doc, failedLogins: 0, lockedUntil: undefined },
      line: `${label(def, found.doc)} may log in at once: ${counted}`,
    };
  });
}
