import { AppError, SECRET_MASK, hasCode, holdsMask, holdsNestedSecret, isSecret, redactSecrets, restoreMasked } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { buildDeviceQuery, maskVariables, normalizeVariables } from '../domain/device-variables';
import type { ConfigBackupDoc, DeviceDoc, DeviceGroupDoc, GatewayCollections } from './collections';
import { ownValue, setOwn } from '@nap/util';

/** An inventory device as answered: secrets masked. */
export type DeviceView = {
  name: string;
  variables: Record<string, unknown>;
  groups: string[];
  created: string;
  updated: string;
  createdBy: string;
  updatedBy: string;
};

/** An inventory device with its secrets opened, for connecting; never answered or logged. */
export interface ResolvedDevice {
  name: string;
  variables: Record<string, unknown>;
  groups: string[];
}

/** A group with its members. */
export type GroupView = {
  name: string;
  description: string;
  devices: string[];
  created?: string;
  updated?: string;
};

/** How a write treats an existing or missing device. */
export type UpsertMode = 'create' | 'update' | 'createOrUpdate';

/** Writes of one device that restore masked secrets, tried again when a concurrent write changed it in between. */
const MAX_WRITE_ATTEMPTS = 5;

function alreadyExists(name: string, cause?: unknown): AppError {
  return new AppError('DEVICE_ALREADY_EXISTS', `An inventory device named "${name}" exists`, { cause, details: { name } });
}

function now(): string {
  return new Date().toISOString();
}

function uniqueStrings(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** The sealed whole value stored for variable `key` of `doc`, if one is: its own member, whatever the name. */
function sealedCopyOf(doc: Pick<DeviceDoc, 'nestedSecrets'>, key: string): string | undefined {
  return doc.nestedSecrets === undefined ? undefined : ownValue(doc.nestedSecrets, key);
}

/** Devices read at a time by the start's sealing of nested secrets. */
export const SEAL_PAGE = 500;

/** What a scan for clear nested secrets did: devices sealed, and devices left because they changed while it ran. */
export interface NestedSecretsScan {
  sealed: number;
  changedMeanwhile: number;
}

/** Options of an {@link InventoryRepository}. */
export interface InventoryRepositoryOptions {
  /**
   * Called when a read found a device with secrets in clear in the named variables and sealed them
   * (a device written by a replica of a version before nested secrets were sealed, during a rolling
   * upgrade); the names of the variables, never their values.
   */
  onSealedOnRead?: (device: string, variables: string[]) => void;
}

/** The sealing of a device's clear nested secrets: the guarded filter and the `$set`, or nothing to seal. */
interface NestedSealing {
  filter: Record<string, unknown>;
  set: Record<string, unknown>;
  variables: string[];
}

/**
 * The inventory: devices (unique name, variables with secrets sealed apart), device groups, config
 * backups. Plain objects in, plain objects out; secrets leave only through {@link resolve}.
 */
export class InventoryRepository {
  constructor(
    private readonly c: GatewayCollections,
    private readonly secrets: SecretBox,
    private readonly options: InventoryRepositoryOptions = {},
  ) {}

  /** The answer form of a stored device. */
  view(doc: DeviceDoc): DeviceView {
    return {
      name: doc.name,
      variables: maskVariables(doc.variables, Object.keys(doc.secrets ?? {})),
      groups: doc.groups ?? [],
      created: doc.created,
      updated: doc.updated,
      createdBy: doc.createdBy,
      updatedBy: doc.updatedBy,
    };
  }

  /** The stored device, its clear nested secrets sealed first if it had any (see {@link sealedOnRead}). */
  async find(name: string): Promise<DeviceDoc | null> {
    const doc = await this.c.devices.findOne({ name: { $eq: name } });
    return doc === null ? null : this.sealedOnRead(doc);
  }

  /**
   * `doc`, read whole from the store, as stored once its clear nested secrets are sealed. The start
   * seals those of the inventory once ({@link sealNestedSecrets}), but during a rolling upgrade a
   * replica of an older version may still write a device with clear nested secrets after that: every
   * read of a whole device (for a session, a request, an answer, an update) seals them in the store.
   * The write is guarded like the start's: it happens only if the device, its `updated` and the
   * values sealed are as read, so it never overwrites a concurrent change; a device changed meanwhile
   * is answered as read (masked all the same) and sealed by a later read.
   */
  private async sealedOnRead(doc: DeviceDoc): Promise<DeviceDoc> {
    const sealing = this.nestedSealingOf(doc);
    if (sealing === undefined) return doc;
    const sealed = await this.c.devices.findOneAndUpdate(sealing.filter, { $set: sealing.set }, { returnDocument: 'after' });
    if (sealed === null) return doc;
    this.options.onSealedOnRead?.(doc.name, sealing.variables);
    return sealed;
  }

  async get(name: string): Promise<DeviceDoc> {
    const doc = await this.find(name);
    if (doc === null) throw new AppError('DEVICE_NOT_FOUND', `No inventory device named "${name}"`, { details: { name } });
    return doc;
  }

  /** The device with secrets opened; `undefined` when no device has that name. */
  async resolve(name: string): Promise<ResolvedDevice | undefined> {
    const doc = await this.find(name);
    if (doc === null) return undefined;
    const variables: Record<string, unknown> = { ...doc.variables };
    for (const [key, sealed] of Object.entries(doc.secrets ?? {})) setOwn(variables, key, this.open(doc.name, key, sealed));
    for (const key of Object.keys(doc.nestedSecrets ?? {})) setOwn(variables, key, this.storedValue(doc, key));
    return { name: doc.name, variables, groups: doc.groups ?? [] };
  }

  private open(device: string, key: string, sealed: string): string {
    try {
      return this.secrets.open(sealed);
    } catch (err) {
      throw new AppError('INTERNAL', `The secret ${key} of device "${device}" cannot be opened; was NAP_SECRET_KEY changed?`, {
        cause: err,
      });
    }
  }

  /** The whole stored value of a non-secret variable: its sealed value with nested secrets, opened, or its plain value. */
  private storedValue(doc: DeviceDoc, key: string): unknown {
    // own members only: a variable named constructor or toString has no sealed copy unless one was stored
    const sealed = sealedCopyOf(doc, key);
    if (sealed === undefined) return doc.variables === undefined ? undefined : ownValue(doc.variables, key);
    try {
      return JSON.parse(this.open(doc.name, key, sealed)) as unknown;
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError('INTERNAL', `The sealed value of ${key} of device "${doc.name}" is not JSON`, { cause: err });
    }
  }

  /**
   * The update of the given variables: plain ones set, secrets sealed (a top-level secret alone; an
   * object or array holding secrets whole, and kept masked among the plain variables), `null` removed.
   * `current` is the stored device, to restore the masked secrets of a value sent back (see
   * {@link restoreMasked}); `guard` then makes the write happen only if those values were not changed meanwhile.
   */
  private changesOf(
    variables: Record<string, unknown>,
    current: DeviceDoc | null,
  ): {
    set: Record<string, unknown>;
    unset: Record<string, ''>;
    plain: Record<string, unknown>;
    sealed: Record<string, string>;
    nested: Record<string, string>;
    guard: Record<string, unknown>;
  } {
    const set: Record<string, unknown> = {};
    const unset: Record<string, ''> = {};
    const plain: Record<string, unknown> = {};
    const sealed: Record<string, string> = {};
    const nested: Record<string, string> = {};
    const guard: Record<string, unknown> = {};
    for (const [key, given] of Object.entries(variables)) {
      if (given === null) {
        unset[`variables.${key}`] = '';
        unset[`secrets.${key}`] = '';
        unset[`nestedSecrets.${key}`] = '';
      } else if (isSecret(key, given)) {
        if (given === SECRET_MASK) {
          // the mask keeps the stored secret; with none stored (a new device, or an answer copied), nothing would be kept
          if (current === null || ownValue(current.secrets, key) === undefined)
            throw new AppError(
              'VALIDATION_FAILED',
              `body.variables.${key} is ${SECRET_MASK}, but the device has no secret stored there to keep: give the secret itself`,
              { details: [{ member: `body.variables.${key}`, message: 'give the secret itself' }] },
            );
          continue;
        }
        const box = this.secrets.seal(String(given));
        setOwn(sealed, key, box);
        set[`secrets.${key}`] = box;
        unset[`variables.${key}`] = '';
        unset[`nestedSecrets.${key}`] = '';
      } else {
        let value: unknown = given;
        if (typeof given === 'object' && holdsMask(given)) {
          value = restoreMasked(given, current === null ? undefined : this.storedValue(current, key), `body.variables.${key}`);
          if (current !== null) {
            const before = sealedCopyOf(current, key);
            guard[`nestedSecrets.${key}`] = before === undefined ? { $exists: false } : { $eq: before };
          }
        }
        const shown = redactSecrets(value);
        setOwn(plain, key, shown);
        set[`variables.${key}`] = shown;
        unset[`secrets.${key}`] = '';
        if (shown === value) {
          unset[`nestedSecrets.${key}`] = '';
        } else {
          const box = this.secrets.seal(JSON.stringify(value));
          setOwn(nested, key, box);
          set[`nestedSecrets.${key}`] = box;
        }
      }
    }
    return { set, unset, plain, sealed, nested, guard };
  }

  /**
   * Creates and/or updates a device. Given variables are merged in: `null` removes one, a secret
   * equal to the mask keeps the stored one (in an object or array too: see {@link restoreMasked}).
   * `groups`, when given, replace the device's groups. Atomic per device (one update document; a
   * value sent back with masked secrets is written only if its stored value did not change since it was read).
   */
  async upsert(
    name: string,
    input: { variables?: Record<string, unknown>; groups?: string[] },
    mode: UpsertMode,
    by: string,
  ): Promise<{ doc: DeviceDoc; created: boolean }> {
    const variables = normalizeVariables(input.variables ?? {});
    const restores = Object.entries(variables).some(
      ([key, v]) => (v !== null && typeof v === 'object' && holdsMask(v)) || (v === SECRET_MASK && isSecret(key, v)),
    );
    for (let attempt = 1; ; attempt++) {
      const current = restores ? await this.find(name) : null;
      if (mode === 'create' && current !== null) throw alreadyExists(name);
      const { set, unset, plain, sealed, nested, guard } = this.changesOf(variables, current);
      set.updated = now();
      set.updatedBy = by;
      if (input.groups !== undefined) set.groups = uniqueStrings(input.groups);
      const update: Record<string, unknown> = { $set: set };
      if (Object.keys(unset).length > 0) update.$unset = unset;
      const retry = (): boolean => {
        if (attempt < MAX_WRITE_ATTEMPTS) return true;
        throw new AppError('CONFLICT', `Inventory device "${name}" kept changing while it was written; send the change again`, {
          details: { name },
        });
      };

      const tryUpdate = async (): Promise<DeviceDoc | null> =>
        this.c.devices.findOneAndUpdate({ name: { $eq: name }, ...guard }, update, { returnDocument: 'after' });
      if (mode !== 'create') {
        const updated = await tryUpdate();
        // the variables not written may be clear nested secrets an older replica wrote
        if (updated !== null) return { doc: await this.sealedOnRead(updated), created: false };
        // read, but changed or deleted before the guarded write: read it again
        if (current !== null && retry()) continue;
        if (mode === 'update') throw new AppError('DEVICE_NOT_FOUND', `No inventory device named "${name}"`, { details: { name } });
      }
      const stamp = now();
      try {
        const doc = await this.c.devices.insertOne({
          name,
          variables: plain,
          secrets: sealed,
          ...(Object.keys(nested).length > 0 ? { nestedSecrets: nested } : {}),
          groups: uniqueStrings(input.groups ?? []),
          created: stamp,
          updated: stamp,
          createdBy: by,
          updatedBy: by,
        });
        return { doc, created: true };
      } catch (err) {
        if (!hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
        if (mode === 'create') throw alreadyExists(name, err);
        // Created by a concurrent request between our update and insert: update it now (masked secrets: from what it holds).
        if (restores && retry()) continue;
        const updated = await tryUpdate();
        if (updated === null) throw err;
        return { doc: await this.sealedOnRead(updated), created: false };
      }
    }
  }

  /**
   * Seals the secrets nested in the variables of devices stored before such secrets were sealed
   * (`gw_http_headers.Authorization` in clear). Each device is rewritten only if it did not change
   * meanwhile; one changed since is left (its answers are masked anyway). Answers how many devices
   * were sealed. The start runs it through {@link sealNestedSecretsOnce}, which records that it is done.
   */
  async sealNestedSecrets(): Promise<number> {
    return (await this.scanNestedSecrets()).sealed;
  }

  /** {@link sealNestedSecrets}, answering also how many devices it left because they changed during the scan. */
  async scanNestedSecrets(): Promise<NestedSecretsScan> {
    const scan: NestedSecretsScan = { sealed: 0, changedMeanwhile: 0 };
    // a page at a time by the unique name index: a large inventory is never held whole at start
    for (let after: string | undefined; ;) {
      const page = await this.c.devices.find(after === undefined ? {} : { name: { $gt: after } }, {
        projection: { name: 1, variables: 1, nestedSecrets: 1, updated: 1 },
        sort: { name: 1 },
        limit: SEAL_PAGE,
      });
      for (const doc of page) {
        const outcome = await this.sealNestedSecretsOf(doc);
        if (outcome === 'sealed') scan.sealed++;
        else if (outcome === 'changed') scan.changedMeanwhile++;
      }
      if (page.length < SEAL_PAGE) return scan;
      after = page[page.length - 1]?.name;
    }
  }

  /** Seals the clear nested secrets of one stored device: sealed, clean (nothing to seal) or changed since it was read (left). */
  private async sealNestedSecretsOf(
    doc: Pick<DeviceDoc, 'name' | 'variables' | 'nestedSecrets' | 'updated'>,
  ): Promise<'sealed' | 'clean' | 'changed'> {
    const sealing = this.nestedSealingOf(doc);
    if (sealing === undefined) return 'clean';
    return (await this.c.devices.updateOne(sealing.filter, { $set: sealing.set })).modifiedCount > 0 ? 'sealed' : 'changed';
  }

  /**
   * The write that seals the clear nested secrets of `doc` as read: each variable holding one is
   * stored masked, its whole value sealed. The filter makes it a no-op unless the device is still as
   * read: same `updated`, no sealed copy of those variables, and those variables still hold the values
   * sealed (a writer in the same millisecond changes no stamp, so the values are compared too).
   */
  private nestedSealingOf(doc: Pick<DeviceDoc, 'name' | 'variables' | 'nestedSecrets' | 'updated'>): NestedSealing | undefined {
    const set: Record<string, unknown> = {};
    const filter: Record<string, unknown> = { name: { $eq: doc.name }, updated: { $eq: doc.updated } };
    const variables: string[] = [];
    for (const [key, value] of Object.entries(doc.variables ?? {})) {
      if (sealedCopyOf(doc, key) !== undefined || !holdsNestedSecret(value)) continue;
      variables.push(key);
      set[`nestedSecrets.${key}`] = this.secrets.seal(JSON.stringify(value));
      set[`variables.${key}`] = redactSecrets(value);
      filter[`nestedSecrets.${key}`] = { $exists: false };
      filter[`variables.${key}`] = { $eq: value };
    }
    return variables.length === 0 ? undefined : { filter, set, variables };
  }

  async delete(name: string): Promise<void> {
    const removed = await this.c.devices.deleteOne({ name: { $eq: name } });
    if (removed === 0) throw new AppError('DEVICE_NOT_FOUND', `No inventory device named "${name}"`, { details: { name } });
    await this.c.configBackups.deleteMany({ device: { $eq: name } });
  }

  /** A page of devices; see {@link buildDeviceQuery} for filter and sort. */
  async list(options: {
    filter?: Record<string, unknown>;
    sort?: unknown;
    skip?: number;
    limit?: number;
  }): Promise<{ items: DeviceView[]; total: number }> {
    const query = buildDeviceQuery(options.filter, options.sort);
    const [docs, total] = await Promise.all([
      this.c.devices.find(query.filter, { sort: query.sort, skip: options.skip ?? 0, limit: options.limit ?? 0 }),
      this.c.devices.countDocuments(query.filter),
    ]);
    return { items: (await this.allSealedOnRead(docs)).map((d) => this.view(d)), total };
  }

  /** The named devices (all when no names are given), by name, their clear nested secrets sealed first. */
  async listByNames(names: readonly string[] | undefined): Promise<DeviceDoc[]> {
    const filter = names === undefined ? {} : { name: { $in: [...names] } };
    return this.allSealedOnRead(await this.c.devices.find(filter, { sort: { name: 1 } }));
  }

  /** {@link sealedOnRead} of each, one write at a time (a page read during an upgrade may hold many). */
  private async allSealedOnRead(docs: DeviceDoc[]): Promise<DeviceDoc[]> {
    const out: DeviceDoc[] = [];
    for (const doc of docs) out.push(await this.sealedOnRead(doc));
    return out;
  }

  /**
   * The devices that set their own session limit (`gw_session_limit`, stored as a whole number), to
   * prime the limiter at start: read from that variable's index, so a start reads them and no other
   * device (a device without one has the default, which needs no priming).
   */
  async sessionLimits(): Promise<{ name: string; variables: Record<string, unknown> }[]> {
    return (await this.c.devices.find({ 'variables.gw_session_limit': { $gte: 1 } }, { projection: { name: 1, variables: 1 } })).map(
      (d) => ({
        name: d.name,
        variables: d.variables ?? {},
      }),
    );
  }

  // ---- groups: metadata in device_groups, membership on the devices ----

  private async requireDevices(names: readonly string[]): Promise<void> {
    const found = await this.c.devices.find({ name: { $in: [...names] } }, { projection: { name: 1 } });
    const known = new Set(found.map((d) => d.name));
    const missing = names.filter((n) => !known.has(n));
    if (missing.length > 0)
      throw new AppError('DEVICE_NOT_FOUND', `No inventory device named ${missing.map((m) => `"${m}"`).join(', ')}`, {
        details: { missing },
      });
  }

  private async members(group: string): Promise<string[]> {
    return (await this.c.devices.find({ groups: { $eq: group } }, { projection: { name: 1 }, sort: { name: 1 } })).map((d) => d.name);
  }

  private groupView(name: string, meta: DeviceGroupDoc | null, devices: string[]): GroupView {
    const view: GroupView = { name, description: meta?.description ?? '', devices };
    if (meta !== null) {
      view.created = meta.created;
      view.updated = meta.updated;
    }
    return view;
  }

  async getGroup(name: string): Promise<GroupView> {
    const [meta, devices] = await Promise.all([this.c.deviceGroups.findOne({ name: { $eq: name } }), this.members(name)]);
    if (meta === null && devices.length === 0)
      throw new AppError('DEVICE_GROUP_NOT_FOUND', `No device group named "${name}"`, { details: { name } });
    return this.groupView(name, meta, devices);
  }

  /** Every group: those with metadata and those only named by devices, with their members. */
  async listGroups(): Promise<GroupView[]> {
    const [metas, devices] = await Promise.all([
      this.c.deviceGroups.find({}),
      this.c.devices.find({}, { projection: { name: 1, groups: 1 } }),
    ]);
    const members = new Map<string, string[]>();
    for (const meta of metas) members.set(meta.name, []);
    for (const d of devices) for (const g of d.groups ?? []) (members.get(g) ?? members.set(g, []).get(g))?.push(d.name);
    const byName = new Map(metas.map((m) => [m.name, m]));
    return [...members.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, names]) => this.groupView(name, byName.get(name) ?? null, names.sort()));
  }

  async createGroup(name: string, description: string, devices: string[], by: string): Promise<GroupView> {
    if (devices.length > 0) await this.requireDevices(devices);
    const stamp = now();
    try {
      await this.c.deviceGroups.insertOne({ name, description, created: stamp, updated: stamp, createdBy: by, updatedBy: by });
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('DEVICE_GROUP_ALREADY_EXISTS', `A device group named "${name}" exists`, { cause: err, details: { name } });
      throw err;
    }
    if (devices.length > 0) await this.c.devices.updateMany({ name: { $in: devices } }, { $addToSet: { groups: name } });
    return this.getGroup(name);
  }

  async updateGroup(name: string, changes: { description?: string; devices?: string[] }, by: string): Promise<GroupView> {
    const existing = await this.getGroup(name);
    if (changes.devices !== undefined) await this.requireDevices(changes.devices);
    const set: Record<string, unknown> = { updated: now(), updatedBy: by };
    if (changes.description !== undefined) set.description = changes.description;
    await this.c.deviceGroups.updateOne(
      { name: { $eq: name } },
      {
        $set: set,
        $setOnInsert: {
          name,
          created: now(),
          createdBy: by,
          ...(changes.description === undefined ? { description: existing.description } : {}),
        },
      },
      { upsert: true },
    );
    if (changes.devices !== undefined) {
      const wanted = uniqueStrings(changes.devices);
      const leaving = existing.devices.filter((d) => !wanted.includes(d));
      if (leaving.length > 0) await this.c.devices.updateMany({ name: { $in: leaving } }, { $pull: { groups: name } });
      if (wanted.length > 0) await this.c.devices.updateMany({ name: { $in: wanted } }, { $addToSet: { groups: name } });
    }
    return this.getGroup(name);
  }

  async deleteGroup(name: string): Promise<void> {
    await this.getGroup(name);
    await this.c.deviceGroups.deleteOne({ name: { $eq: name } });
    await this.c.devices.updateMany({ groups: { $eq: name } }, { $pull: { groups: name } });
  }

  async addToGroup(name: string, devices: string[]): Promise<GroupView> {
    await this.getGroup(name);
    await this.requireDevices(devices);
    await this.c.devices.updateMany({ name: { $in: devices } }, { $addToSet: { groups: name } });
    return this.getGroup(name);
  }

  async removeFromGroup(name: string, devices: string[]): Promise<GroupView> {
    const group = await this.getGroup(name);
    const notMembers = devices.filter((d) => !group.devices.includes(d));
    if (notMembers.length > 0) {
      throw new AppError(
        'DEVICE_NOT_FOUND',
        `${notMembers.map((m) => `"${m}"`).join(', ')} ${notMembers.length === 1 ? 'is' : 'are'} not in device group "${name}"`,
        { details: { missing: notMembers } },
      );
    }
    await this.c.devices.updateMany({ name: { $in: devices } }, { $pull: { groups: name } });
    // Keep the group itself even when it has no member left.
    await this.c.deviceGroups.updateOne(
      { name: { $eq: name } },
      { $setOnInsert: { name, description: group.description, created: now(), updated: now(), createdBy: 'system', updatedBy: 'system' } },
      { upsert: true },
    );
    return this.getGroup(name);
  }

  // ---- configuration backups ----

  async addBackup(device: string, config: string, reason: string, by: string): Promise<ConfigBackupDoc> {
    return this.c.configBackups.insertOne({ device, config, reason, created: now(), createdBy: by });
  }

  async getBackup(device: string, id: string | undefined): Promise<ConfigBackupDoc> {
    const doc =
      id === undefined
        ? await this.c.configBackups.findOne({ device: { $eq: device } }, { sort: { created: -1 } })
        : await this.c.configBackups.findOne({ _id: { $eq: id }, device: { $eq: device } });
    if (doc === null) {
      throw new AppError(
        'DEVICE_BACKUP_NOT_FOUND',
        id === undefined ? `Device "${device}" has no configuration backup` : `Device "${device}" has no configuration backup "${id}"`,
        {
          details: { device, id },
        },
      );
    }
    return doc;
  }

  async listBackups(device: string, skip: number, limit: number): Promise<{ results: ConfigBackupDoc[]; total: number }> {
    const filter = { device: { $eq: device } };
    const [results, total] = await Promise.all([
      this.c.configBackups.find(filter, { sort: { created: -1 }, skip, limit }),
      this.c.configBackups.countDocuments(filter),
    ]);
    return { results, total };
  }
}
