import { randomBytes } from 'node:crypto';
import { CliError, EXIT, usage } from '../errors';
import type { Client } from '../http/client';
import { pathOf } from '../http/client';
import type { Doc } from './documents';
import { field, isDoc, itemsOf, str, unwrap } from './documents';
import type { Found } from './lookup';
import { listAll, lookup } from './lookup';
import type { ResourceDef } from './registry';
import { an, findResource } from './registry';

/**
 * Export, import and copy of the resources the platform has no export or import route for
 * (integrations, accounts, groups, devices, device groups). The exported document is nap's own
 * portable form: the document as the platform answers it, without what the server owns (ids,
 * timestamps, created/updated-by, derived members) and without secrets, which the platform answers
 * masked or not at all. What each form holds is documented in the resource table (`portable.form`)
 * and in docs/cli.md. An import creates each document with the resource's create route, or with
 * `--replace` updates the existing one in place, so that ids others refer to stay.
 */

/** What the platform answers in place of a secret. */
export const SECRET_MASK = '********';

/** The member of a portable document that lists the secrets its export left out (dotted paths). */
export const OMITTED_SECRETS = 'omittedSecrets';

export interface PortableOptions {
  /** Members to set in every document, by dotted path (`--secret-from-env MEMBER=VAR`). */
  secrets: Readonly<Record<string, string>>;
  /** A line for people on stderr. */
  note: (line: string) => void;
}

export interface Portable {
  /** The portable form of one document. */
  export(client: Client, found: Found): Promise<Doc>;
  /**
   * Checks one document against the target (`existing`: the document of the same name there, to
   * update) and answers its write. Every document of an import is checked before any is written.
   */
  prepare(client: Client, doc: Doc, existing: Found | undefined, opts: PortableOptions): Promise<() => Promise<unknown>>;
  /** For resources whose delete has no route of its own. */
  delete?(client: Client, found: Found): Promise<unknown>;
}

/** A copy of `value` with the members the platform masked left out; `secrets` receives their paths. */
export function withoutSecrets(value: unknown, secrets: string[], at = ''): unknown {
  if (Array.isArray(value)) return value.map((item: unknown, i) => withoutSecrets(item, secrets, `${at}${at === '' ? '' : '.'}${i}`));
  if (!isDoc(value)) return value;
  const out: Doc = {};
  for (const [key, member] of Object.entries(value)) {
    const here = at === '' ? key : `${at}.${key}`;
    if (member === SECRET_MASK) secrets.push(here);
    else out[key] = withoutSecrets(member, secrets, here);
  }
  return out;
}

/** The members of `doc` named, in this order, those it has. */
function pick(doc: Doc, keys: readonly string[]): Doc {
  const out: Doc = {};
  for (const key of keys) if (doc[key] !== undefined) out[key] = doc[key];
  return out;
}

/** Sets a member by dotted path, making the objects on the way. */
function setMember(doc: Doc, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let current = doc;
  for (const part of parts.slice(0, -1)) {
    const next = current[part];
    if (!isDoc(next)) current[part] = {};
    current = current[part] as Doc;
  }
  current[parts[parts.length - 1] as string] = value;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The portable form with the secrets its export left out listed, when there are any. */
function portableWith(doc: Doc, secrets: readonly string[]): Doc {
  return secrets.length === 0 ? doc : { ...doc, [OMITTED_SECRETS]: [...secrets].sort() };
}

/**
 * The document to send: a deep copy without `omittedSecrets`, with the `--secret-from-env` members
 * set; `missing` names the omitted secrets still without a value.
 */
function withGivenSecrets(input: Doc, opts: PortableOptions): { doc: Doc; missing: string[] } {
  const { [OMITTED_SECRETS]: omitted, ...rest } = input;
  const doc = structuredClone(rest);
  for (const [member, value] of Object.entries(opts.secrets)) setMember(doc, member, value);
  return { doc, missing: strings(omitted).filter((p) => field(doc, p) === undefined) };
}

function secretHint(missing: readonly string[]): string {
  return `give ${missing.length === 1 ? 'it' : 'them'} with ${missing.map((m) => `--secret-from-env ${m}=VAR`).join(' ')}`;
}

function nameOf(def: ResourceDef, doc: Doc): string {
  const name = def.nameOf(doc);
  if (name === undefined) throw usage(`${an(def.singular)} document without a name cannot be imported`);
  return name;
}

// ---- integrations -----------------------------------------------------------------------------

const INTEGRATION_MEMBERS = ['name', 'model', 'type', 'properties'] as const;

async function getIntegration(client: Client, name: string): Promise<Doc> {
  const res = await client.request({ method: 'GET', path: pathOf('/integrations/:name', { name }) });
  const doc = unwrap(res.body);
  if (!isDoc(doc)) throw new CliError(`GET /integrations/${name} answered no document`, EXIT.FAILED);
  return doc;
}

/** Puts `********` back where the target stores a secret the document does not give: the update keeps it. */
function keepStoredSecrets(doc: Doc, current: Doc): Doc {
  const stored: string[] = [];
  withoutSecrets(pick(current, INTEGRATION_MEMBERS), stored);
  const out = structuredClone(doc);
  for (const member of stored) {
    const parent = member.split('.').slice(0, -1).join('.');
    if (field(out, member) === undefined && isDoc(field(out, parent))) setMember(out, member, SECRET_MASK);
  }
  return out;
}

const integrations = (def: ResourceDef): Portable => ({
  async export(client, found) {
    const full = await getIntegration(client, found.name ?? '');
    const secrets: string[] = [];
    const doc = withoutSecrets(pick(full, INTEGRATION_MEMBERS), secrets) as Doc;
    return portableWith(doc, secrets);
  },
  async prepare(client, input, existing, opts) {
    const name = nameOf(def, input);
    const { doc, missing } = withGivenSecrets(input, opts);
    if (existing === undefined) {
      return async () => {
        const req = { method: 'POST', path: '/integrations', json: { properties: doc } } as const;
        const res = await client.send(req);
        if (res.status >= 400) {
          const err = client.failure(req, res);
          if (missing.length === 0) throw err;
          const hint = `the export of integration "${name}" holds no secrets (${missing.join(', ')}): ${secretHint(missing)}`;
          throw new CliError(`${err.message}; ${hint}`, err.exitCode, { cause: err });
        }
        if (missing.length > 0)
          opts.note(`integration "${name}" was created on ${client.url} without its secrets ${missing.join(', ')}: ${secretHint(missing)}`);
        return unwrap(res.body);
      };
    }
    const current = await getIntegration(client, name);
    const body = keepStoredSecrets(doc, current);
    return async () =>
      unwrap((await client.request({ method: 'PUT', path: pathOf('/integrations/:name', { name }), json: { properties: body } })).body);
  },
});

// ---- groups and accounts ----------------------------------------------------------------------

/**
 * Accounts and groups a sign-in method (LDAP, RADIUS) brought in carry its name as `provenance`:
 * they belong to the directory, and the target's own sign-in brings them in. A local copy would
 * take the username from the directory there (a local account is asked first), so none is made.
 */
function refuseDirectory(def: ResourceDef, found: Found, client: Client): void {
  const provenance = str(found.doc.provenance);
  if (provenance === undefined) return;
  throw new CliError(
    `${def.singular} "${found.name ?? ''}" on ${client.url} comes from sign-in method "${provenance}": the directory brings it in on each platform, and a local copy would take its name from the directory, so nap does not export it`,
    EXIT.FAILED,
  );
}

async function groupsByName(client: Client): Promise<Map<string, Doc>> {
  const res = await client.request({ method: 'GET', path: '/user-management/groups' });
  return new Map(
    itemsOf(res.body)
      .filter((g) => typeof g.name === 'string')
      .map((g) => [g.name as string, g]),
  );
}

/** The custom roles of a platform by name and by id (`GET /authorization/roles`; the built-in ones are given by `roles`). */
async function customRoles(client: Client): Promise<{ byName: Map<string, Doc>; byId: Map<string, Doc> }> {
  const roles = findResource('roles');
  if (roles === undefined) throw new Error('no roles resource');
  const custom = (await listAll(client, roles)).items.filter((r) => r.builtIn !== true && typeof r.name === 'string');
  return {
    byName: new Map(custom.map((r) => [r.name as string, r])),
    byId: new Map(custom.filter((r) => str(r._id) !== undefined).map((r) => [r._id as string, r])),
  };
}

/** The ids of a group's custom roles (`assignedRoles: [{ roleId }]`). */
export function assignedRoleIds(group: Doc): string[] {
  const assigned = Array.isArray(group.assignedRoles) ? group.assignedRoles : [];
  return assigned.map((a: unknown) => (isDoc(a) ? str(a.roleId) : undefined)).filter((id): id is string => id !== undefined);
}

const groups = (def: ResourceDef): Portable => ({
  async export(client, found) {
    refuseDirectory(def, found, client);
    const doc = pick(found.doc, ['name', 'description', 'roles']);
    const ids = assignedRoleIds(found.doc);
    if (ids.length === 0) return doc;
    // custom roles by name: their ids differ between platforms
    const { byId } = await customRoles(client);
    const names = ids.map((id) => {
      const role = byId.get(id);
      if (role === undefined)
        throw new CliError(`group "${found.name ?? ''}" is given role ${id}, which ${client.url} does not list`, EXIT.FAILED);
      return role.name as string;
    });
    return { ...doc, customRoles: names.sort() };
  },
  async prepare(client, input, existing, opts) {
    const name = nameOf(def, input);
    const { doc } = withGivenSecrets(input, opts);
    let assignedRoles: { roleId: string }[] | undefined;
    if (doc.customRoles !== undefined) {
      const { byName, byId } = await customRoles(client);
      const wanted = strings(doc.customRoles);
      const unknown = wanted.filter((r) => !byName.has(r) && !byId.has(r));
      if (unknown.length > 0)
        throw new CliError(
          `group "${name}" is given ${unknown.map((r) => `role "${r}"`).join(', ')}, which ${client.url} does not have as a custom role: import ${unknown.length === 1 ? 'it' : 'them'} first (\`nap copy role NAME\` or \`nap import role FILE\`)`,
          EXIT.FAILED,
        );
      assignedRoles = [...new Set(wanted.map((r) => str((byName.get(r) ?? byId.get(r))?._id) ?? r))].map((roleId) => ({ roleId }));
    }
    if (existing === undefined) {
      return async () =>
        unwrap(
          (
            await client.request({
              method: 'POST',
              path: '/user-management/groups',
              json: {
                group: { ...pick(doc, ['name', 'description', 'roles']), ...(assignedRoles === undefined ? {} : { assignedRoles }) },
              },
            })
          ).body,
        );
    }
    const groupId = existing.id ?? '';
    const description = str(doc.description);
    return async () => {
      let answer: unknown = existing.doc;
      if (doc.roles !== undefined) {
        const res = await client.request({
          method: 'PUT',
          path: pathOf('/user-management/groups/:groupId/roles', { groupId }),
          json: { roles: strings(doc.roles) },
        });
        answer = unwrap(res.body);
      }
      if (assignedRoles !== undefined) {
        const res = await client.request({
          method: 'PUT',
          path: pathOf('/user-management/groups/:groupId/assigned-roles', { groupId }),
          json: { assignedRoles },
        });
        answer = unwrap(res.body);
      }
      if (description !== undefined && description !== (str(existing.doc.description) ?? ''))
        opts.note(
          `group "${name}" on ${client.url} keeps its description "${str(existing.doc.description) ?? ''}": the platform has no route that changes a group's description`,
        );
      return answer;
    };
  },
});

/** A password nobody knows: the account cannot log in until an admin sets one. */
function unknowablePassword(): string {
  return randomBytes(24).toString('base64url');
}

const accounts = (def: ResourceDef): Portable => ({
  async export(client, found) {
    refuseDirectory(def, found, client);
    const byId = new Map([...(await groupsByName(client)).values()].map((g) => [str(g._id), str(g.name)]));
    const doc = pick(found.doc, ['username', 'firstname', 'lastname', 'email']);
    const names = strings(found.doc.groups).map((id) => {
      const groupName = byId.get(id);
      if (groupName === undefined)
        throw new CliError(`account "${found.name ?? ''}" is in group ${id}, which ${client.url} does not list`, EXIT.FAILED);
      return groupName;
    });
    return { ...doc, groups: names.sort(), inactive: found.doc.inactive === true };
  },
  async prepare(client, input, existing, opts) {
    const username = nameOf(def, input);
    const { doc } = withGivenSecrets(input, opts);
    const known = await groupsByName(client);
    // names, as exported; ids are accepted too (a document written from `nap describe account`)
    for (const group of [...known.values()]) if (str(group._id) !== undefined) known.set(str(group._id) as string, group);
    const wanted = strings(doc.groups);
    const unknown = wanted.filter((g) => !known.has(g));
    if (unknown.length > 0)
      throw new CliError(
        `account "${username}" is in ${unknown.map((g) => `group "${g}"`).join(', ')}, which ${client.url} does not have: import ${unknown.length === 1 ? 'it' : 'them'} first (\`nap copy group NAME\` or \`nap import group FILE\`)`,
        EXIT.FAILED,
      );
    const groupIds = wanted.map((g) => str(known.get(g)?._id) ?? g);
    const password = str(doc.password);
    const profile = pick(doc, ['firstname', 'lastname', 'email']);
    if (existing === undefined) {
      return async () => {
        const account = {
          username,
          password: password ?? unknowablePassword(),
          ...profile,
          ...(doc.groups === undefined ? {} : { groups: groupIds }),
        };
        const created = unwrap((await client.request({ method: 'POST', path: '/user-management/accounts', json: { account } })).body);
        const accountId = isDoc(created) ? (str(created._id) ?? '') : '';
        if (doc.inactive === true)
          await client.request({
            method: 'PATCH',
            path: pathOf('/authorization/accounts/:accountId', { accountId }),
            json: { inactive: true },
          });
        if (password === undefined)
          opts.note(
            `account "${username}" was created on ${client.url} with no password anyone knows (passwords are never exported): an admin sets one with \`nap api put /user-management/accounts/${accountId}/password --data '{"password":"…"}'\`, or import it with --password-from-env VAR`,
          );
        return created;
      };
    }
    const accountId = existing.id ?? '';
    return async () => {
      const changes = { ...profile, ...(typeof doc.inactive === 'boolean' ? { inactive: doc.inactive } : {}) };
      let answer: unknown = existing.doc;
      if (Object.keys(changes).length > 0)
        answer = unwrap(
          (await client.request({ method: 'PATCH', path: pathOf('/authorization/accounts/:accountId', { accountId }), json: changes }))
            .body,
        );
      if (doc.groups !== undefined)
        answer = unwrap(
          (
            await client.request({
              method: 'PUT',
              path: pathOf('/user-management/accounts/:accountId/groups', { accountId }),
              json: { groups: groupIds },
            })
          ).body,
        );
      if (password !== undefined)
        await client.request({
          method: 'PUT',
          path: pathOf('/user-management/accounts/:accountId/password', { accountId }),
          json: { password },
        });
      return answer;
    };
  },
});

// ---- devices and device groups ----------------------------------------------------------------

async function getDevice(client: Client, name: string): Promise<Doc | undefined> {
  const req = { method: 'POST', path: '/gw/getInventoryDevice', json: { name } } as const;
  const res = await client.send(req);
  if (res.status === 404) return undefined;
  if (res.status >= 400) throw client.failure(req, res);
  const doc = unwrap(res.body);
  return isDoc(doc) ? doc : undefined;
}

async function writeDevice(client: Client, body: Doc): Promise<unknown> {
  return (await client.request({ method: 'POST', path: '/gw/createInventoryDevice', json: body })).body;
}

const devices = (def: ResourceDef): Portable => ({
  async export(_client, found) {
    const secrets: string[] = [];
    const doc = withoutSecrets(pick(found.doc, ['name', 'variables', 'groups']), secrets) as Doc;
    return portableWith(doc, secrets);
  },
  async prepare(client, input, existing, opts) {
    const name = nameOf(def, input);
    const { doc, missing } = withGivenSecrets(input, opts);
    const variables: Doc = isDoc(doc.variables) ? { ...doc.variables } : {};
    if (existing !== undefined) {
      // replace: the plain variables become the document's (null removes one); the secret ones stay
      const current = isDoc(existing.doc.variables) ? existing.doc.variables : {};
      for (const [key, value] of Object.entries(current)) if (value !== SECRET_MASK && !(key in variables)) variables[key] = null;
    }
    const body = { name, variables, ...(doc.groups === undefined ? {} : { groups: strings(doc.groups) }) };
    return async () => {
      const answer = await writeDevice(client, body);
      if (existing === undefined && missing.length > 0)
        opts.note(
          `device "${name}" was created on ${client.url} without its secret variables ${missing.join(', ')}: ${secretHint(missing)}`,
        );
      return answer;
    };
  },
});

async function deviceGroup(client: Client, def: ResourceDef, name: string): Promise<Doc | undefined> {
  return (await listAll(client, def)).items.find((g) => g.name === name);
}

/** Adds the group to the devices `joining` and takes it from those `leaving`, reading each device just before. */
async function moveMembers(client: Client, group: string, joining: readonly string[], leaving: readonly string[]): Promise<void> {
  for (const [names, join] of [
    [joining, true],
    [leaving, false],
  ] as const) {
    for (const name of names) {
      const device = await getDevice(client, name);
      if (device === undefined) throw new CliError(`device "${name}" is no longer on ${client.url}`, EXIT.FAILED);
      const now = strings(device.groups);
      const next = join ? [...new Set([...now, group])] : now.filter((g) => g !== group);
      if (next.length !== now.length) await writeDevice(client, { name, groups: next });
    }
  }
}

const deviceGroups = (def: ResourceDef): Portable => ({
  async export(_client, found) {
    return { name: found.doc.name, description: str(found.doc.description) ?? '', devices: strings(found.doc.devices).sort() };
  },
  async prepare(client, input, existing, opts) {
    const name = nameOf(def, input);
    const wanted = [...new Set(strings(input.devices))];
    if (wanted.length === 0)
      throw usage(
        `device group "${name}" names no device: over HTTP a device group lives on its devices ("groups"), so it needs at least one (devices: [NAME, …])`,
      );
    const absent: string[] = [];
    for (const device of wanted) if ((await getDevice(client, device)) === undefined) absent.push(device);
    if (absent.length > 0)
      throw new CliError(
        `device group "${name}" names ${absent.map((d) => `"${d}"`).join(', ')}, not on ${client.url}: import ${absent.length === 1 ? 'that device' : 'those devices'} first (\`nap copy device NAME\` or \`nap import device FILE\`)`,
        EXIT.FAILED,
      );
    const members = existing === undefined ? [] : strings(existing.doc.devices);
    const description = str(input.description);
    return async () => {
      await moveMembers(
        client,
        name,
        wanted.filter((d) => !members.includes(d)),
        members.filter((d) => !wanted.includes(d)),
      );
      const stored = await deviceGroup(client, def, name);
      if (description !== undefined && description !== (str(stored?.description) ?? ''))
        opts.note(
          `device group "${name}" on ${client.url} has ${stored?.description ? `the description "${String(stored.description)}"` : 'no description'}: only the platform's bus stores a device group's description`,
        );
      return stored;
    };
  },
  async delete(client, found) {
    const name = found.name ?? '';
    await moveMembers(client, name, [], strings(found.doc.devices));
    if ((await deviceGroup(client, def, name)) !== undefined)
      throw new CliError(
        `device group "${name}" has no device left on ${client.url}, but its record (made on the platform's bus) stays: no HTTP route deletes it`,
        EXIT.FAILED,
      );
    return { status: 'success', message: `Device group "${name}" removed from its devices` };
  },
});

const BEHAVIOURS: Record<string, (def: ResourceDef) => Portable> = {
  integrations,
  accounts,
  groups,
  devices,
  'device-groups': deviceGroups,
};

/** The plural names of the resources this module exports and imports. */
export const PORTABLE_RESOURCES: readonly string[] = Object.keys(BEHAVIOURS);

/** How `nap` exports and imports a resource that has a portable form. */
export function portableOf(def: ResourceDef): Portable {
  const make = BEHAVIOURS[def.plural];
  if (def.portable === undefined || make === undefined) throw new Error(`${def.plural} has no portable form`);
  return make(def);
}

/**
 * Imports portable documents into one platform: every document is checked first (a conflict, a
 * group or device the target lacks), then each is written; `replace` updates existing ones in place.
 */
export async function importPortable(
  client: Client,
  def: ResourceDef,
  docs: readonly Doc[],
  replace: boolean,
  opts: PortableOptions,
): Promise<unknown[]> {
  const portable = portableOf(def);
  const writes: (() => Promise<unknown>)[] = [];
  for (const doc of docs) {
    const name = nameOf(def, doc);
    const existing = await lookup(client, def, name);
    if (existing !== undefined && !replace)
      throw new CliError(`${def.singular} "${name}" already exists on ${client.url}; add --replace to overwrite it`, EXIT.FAILED);
    writes.push(await portable.prepare(client, doc, existing, opts));
  }
  const answers: unknown[] = [];
  for (const write of writes) answers.push(await write());
  return answers;
}
