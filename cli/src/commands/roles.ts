import type { Context } from '../context';
import { eachItem } from '../each';
import { CliError, EXIT } from '../errors';
import type { ApiRequest, Client } from '../http/client';
import { pathOf, platformMessage } from '../http/client';
import { table } from '../output/format';
import type { Doc } from '../resources/documents';
import { isDoc, str, unwrap } from '../resources/documents';
import type { Found } from '../resources/lookup';
import { fullDocument, listAll, mustFind } from '../resources/lookup';
import { assignedRoleIds } from '../resources/portable';
import { methodRoute } from '../resources/registry';
import { label, resourceOf } from './assets';

/*
 * `nap roles`: what a role allows, read as people read it, and giving roles to groups. A built-in
 * role is given with `PUT /user-management/groups/:groupId/roles`, a custom one with `PUT
 * …/assigned-roles`: both replace the whole list, so the group is read first and the list sent is
 * the one there with the role added or taken out.
 */

/** A method a role allows, as its key in `GET /authorization/methods`: `OperationsManager.getJobs`. */
function methodKey(d: Doc): string {
  return `${String(d.provenance)}.${String(d.name)}`;
}

/** The role a name or id means, in full. */
async function roleOf(client: Client, name: string): Promise<Found> {
  const def = resourceOf('role');
  const found = await mustFind(client, def, name);
  return { ...found, doc: await fullDocument(client, def, found) };
}

/**
 * `nap roles methods <role>`: the methods a role allows, by application then name, each with the
 * route it is (from `GET /authorization/methods`); a method the platform no longer has is said so.
 */
export async function roleMethods(ctx: Context, name: string): Promise<void> {
  const client = ctx.client();
  const role = await roleOf(client, name);
  const allowed = (Array.isArray(role.doc.allowedMethods) ? role.doc.allowedMethods : []).filter(isDoc);
  const known = new Map((await listAll(client, resourceOf('methods'))).items.map((m) => [methodKey(m), m]));
  const methods = allowed
    .map((m): Doc => {
      const there = known.get(methodKey(m));
      return { provenance: m.provenance, name: m.name, ...(there?.route === undefined ? {} : { route: there.route }) };
    })
    .sort((a, b) => String(a.provenance).localeCompare(String(b.provenance)) || String(a.name).localeCompare(String(b.name)));
  ctx.print(methods, () => {
    if (methods.length === 0) return `${label(resourceOf('role'), role.doc)} allows no method\n`;
    return table(
      methods,
      [
        { header: 'APPLICATION', value: (m: Doc) => m.provenance },
        { header: 'METHOD', value: (m: Doc) => m.name },
        { header: 'ROUTE', value: (m: Doc) => methodRoute(m) ?? `not on ${client.url}` },
      ],
      ctx.colors,
      ctx.width,
    );
  });
}

/** The group with the role given (`grant`) or taken out: the request that makes it so, or nothing when it already is. */
function change(role: Doc, group: Doc, grant: boolean): ApiRequest | undefined {
  const groupId = str(group._id) ?? '';
  if (role.builtIn === true) {
    const name = String(role.name);
    const now = Array.isArray(group.roles) ? group.roles.filter((r): r is string => typeof r === 'string') : [];
    if (now.includes(name) === grant) return undefined;
    const roles = grant ? [...now, name] : now.filter((r) => r !== name);
    return { method: 'PUT', path: pathOf('/user-management/groups/:groupId/roles', { groupId }), json: { roles } };
  }
  const roleId = str(role._id) ?? '';
  const now = assignedRoleIds(group);
  if (now.includes(roleId) === grant) return undefined;
  const ids = grant ? [...now, roleId] : now.filter((id) => id !== roleId);
  return {
    method: 'PUT',
    path: pathOf('/user-management/groups/:groupId/assigned-roles', { groupId }),
    json: { assignedRoles: ids.map((id) => ({ roleId: id })) },
  };
}

/**
 * `nap roles grant|revoke <role> <groups...>`: the role given to each group, or taken from it,
 * each group on its own (eachItem's rule); a group that already is as asked is said so, and not
 * written.
 */
export async function grantRole(ctx: Context, grant: boolean, roleName: string, groupNames: string[]): Promise<void> {
  const client = ctx.client();
  const roleDef = resourceOf('role');
  const groupDef = resourceOf('group');
  const role = await roleOf(client, roleName);
  const roleLabel = label(roleDef, role.doc);
  const done = grant ? 'given to' : 'taken from';
  const groups: unknown[] = [];
  await eachItem(
    ctx,
    groupNames,
    { plural: 'groups', done: grant ? 'given the role' : 'changed', item: 'group' },
    async (name) => {
      const group = await mustFind(client, groupDef, name);
      const req = change(role.doc, group.doc, grant);
      if (req === undefined) {
        groups.push(group.doc);
        if (ctx.format === 'human')
          ctx.out(`${label(groupDef, group.doc)} ${grant ? 'already has' : 'does not have'} ${roleLabel}: nothing to change`);
        return;
      }
      const res = await client.send(req);
      if (res.status === 401) throw client.failure(req, res);
      if (res.status >= 400) {
        const { code, message } = platformMessage(res.body);
        throw new CliError(
          `${roleLabel} not ${done} ${label(groupDef, group.doc)}: ${message} (${res.status}${code === undefined ? '' : ` ${code}`})`,
          res.status === 403 ? EXIT.AUTH : EXIT.FAILED,
        );
      }
      const stored = unwrap(res.body);
      groups.push(stored);
      if (ctx.format === 'human')
        ctx.out(
          `${roleLabel} ${done} ${label(groupDef, group.doc)}: its members ${grant ? 'may call what it allows' : 'no longer have what it alone allows'} from their next request`,
        );
    },
    () => {
      if (ctx.format !== 'human' && groups.length > 0) ctx.print(groupNames.length === 1 ? groups[0] : groups, () => '');
    },
  );
}
