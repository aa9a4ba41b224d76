import { generateKeyPairSync, createPrivateKey, randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { AppError, hasCode, isRole, signToken } from '@nap/contracts';
import type { BodyOf, Caller, ListQueryOptions, Role, TokenPublicKey } from '@nap/contracts';
import { MAX_LIST_LIMIT, toListQuery } from '@nap/store';
import type { Collection, ListFields, Store } from '@nap/store';
import type { SecretBox } from '@nap/runtime';
import type { AccountRecord, AccountView, GroupRecord, KeyRecord, SessionRecord } from '../store/records';
import { hashPassword, verifyPassword } from './password';

/** Publishes an admin event (subject from contracts' `eventSubject`, payload schemas in contracts' EVENTS); gateways revoke on it. */
export type EmitEvent = (
  entity: 'account' | 'group' | 'session',
  id: string,
  event: 'accountChanged' | 'groupChanged' | 'sessionRevoked',
  payload: Record<string, unknown>,
) => Promise<void>;

export interface AdminDomainOptions {
  store: Store;
  secrets: SecretBox;
  /** Token lifetime and session idle limit, read on every use (they change while the service runs). */
  sessions: { readonly tokenTtlSeconds: number; readonly sessionIdleMinutes: number | undefined };
  emit: EmitEvent;
}

/**
 * The gateway resolves a session at most once a minute (its session cache), so the admin service
 * sees use of a busy session only that often: the idle limit allows this much on top.
 */
export const SESSION_USE_GRANULARITY_MS = 60_000;
/** What the account list filters and sorts on. */
const ACCOUNT_LIST_FIELDS: ListFields = {
  filter: ['username', '_id', 'email', 'firstname', 'lastname'],
  sort: ['username', '_id', 'created'],
  defaultSort: { username: 1 },
  defaultLimit: MAX_LIST_LIMIT,
};
/** What the group list filters and sorts on. */
const GROUP_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description'],
  sort: ['name', '_id', 'created'],
  defaultSort: { name: 1 },
  defaultLimit: MAX_LIST_LIMIT,
};

/** An account to create, as `POST /user-management/accounts` carries it. */
export type NewAccount = BodyOf<'admin.createAccount'>['account'];

/** Members of an account to change, as `PATCH /authorization/accounts/:accountId` carries them. */
export type AccountPatch = BodyOf<'admin.updateAccount'>;

/** A group to create, as `POST /user-management/groups` carries it. */
export type NewGroup = BodyOf<'admin.createGroup'>['group'];

export interface IssuedToken {
  token: string;
  sid: string;
  expiresIn: number;
}

const SIGNING_KEY_ID = 'signing';

/** Accounts, groups, sessions and token keys: the admin service's domain, over its own store. */
export class AdminDomain {
  private readonly accounts: Collection<AccountRecord>;
  private readonly groups: Collection<GroupRecord>;
  private readonly sessions: Collection<SessionRecord>;
  private readonly keys: Collection<KeyRecord>;
  private signing: { kid: string; key: KeyObject; publicKeyPem: string } | undefined;

  constructor(private readonly options: AdminDomainOptions) {
    this.accounts = options.store.collection<AccountRecord>('accounts');
    this.groups = options.store.collection<GroupRecord>('groups');
    this.sessions = options.store.collection<SessionRecord>('sessions');
    this.keys = options.store.collection<KeyRecord>('keys');
  }

  // ---- accounts ----

  async createAccount(input: NewAccount, by: string): Promise<AccountView> {
    const groups = await this.checkGroups(input.groups ?? [], 'body.account.groups');
    const now = new Date().toISOString();
    const record: Omit<AccountRecord, '_id'> = {
      username: input.username,
      ...(input.firstname !== undefined ? { firstname: input.firstname } : {}),
      ...(input.lastname !== undefined ? { lastname: input.lastname } : {}),
      ...(input.email !== undefined ? { email: input.email } : {}),
      groups,
      inactive: false,
      passwordHash: await hashPassword(input.password),
      created: now,
      createdBy: by,
      lastUpdated: now,
      lastUpdatedBy: by,
    };
    try {
      return this.view(await this.accounts.insertOne({ _id: randomUUID(), ...record }));
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('ACCOUNT_ALREADY_EXISTS', `An account with username "${input.username}" already exists`, { cause: err });
      throw err;
    }
  }

  async getAccount(id: string): Promise<AccountView> {
    return this.view(await this.account(id));
  }

  /** A page of accounts by the shared list options (every account up to 500 when no limit is given). */
  async listAccounts(options: ListQueryOptions = {}): Promise<{ results: AccountView[]; total: number }> {
    const query = toListQuery(options, ACCOUNT_LIST_FIELDS);
    const [records, total] = await Promise.all([
      this.accounts.find(query.filter, { sort: query.sort, skip: query.skip, limit: query.limit }),
      this.accounts.countDocuments(query.filter),
    ]);
    const groups = await this.groupMap();
    return { results: records.map((r) => this.viewWith(r, groups)), total };
  }

  async updateAccount(id: string, patch: AccountPatch, by: string): Promise<AccountView> {
    const current = await this.account(id);
    if (patch.inactive === true) await this.keepAnAdmin(current._id, current.groups, []);
    const set: Record<string, unknown> = { lastUpdated: new Date().toISOString(), lastUpdatedBy: by };
    for (const key of ['firstname', 'lastname', 'email', 'inactive'] as const) if (patch[key] !== undefined) set[key] = patch[key];
    const updated = await this.accounts.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' });
    if (!updated) throw accountNotFound(id);
    if (patch.inactive === true) await this.endSessions(id);
    await this.options.emit('account', id, 'accountChanged', { accountId: id, reason: 'updated' });
    return this.view(updated);
  }

  async setAccountGroups(id: string, groupIds: string[], by: string): Promise<AccountView> {
    const current = await this.account(id);
    const groups = await this.checkGroups(groupIds, 'body.groups');
    await this.keepAnAdmin(current._id, current.groups, groups);
    const updated = await this.accounts.findOneAndUpdate(
      { _id: id },
      { $set: { groups, lastUpdated: new Date().toISOString(), lastUpdatedBy: by } },
      { returnDocument: 'after' },
    );
    if (!updated) throw accountNotFound(id);
    await this.options.emit('account', id, 'accountChanged', { accountId: id, reason: 'groups' });
    return this.view(updated);
  }

  async setAccountPassword(id: string, password: string, by: string): Promise<AccountView> {
    await this.account(id);
    const updated = await this.accounts.findOneAndUpdate(
      { _id: id },
      { $set: { passwordHash: await hashPassword(password), lastUpdated: new Date().toISOString(), lastUpdatedBy: by } },
      { returnDocument: 'after' },
    );
    if (!updated) throw accountNotFound(id);
    await this.endSessions(id);
    await this.options.emit('account', id, 'accountChanged', { accountId: id, reason: 'password' });
    return this.view(updated);
  }

  async deleteAccount(id: string, caller: Caller): Promise<AccountView> {
    const current = await this.account(id);
    if (id === caller.id) throw new AppError('ACCOUNT_PROTECTED', `Account "${current.username}" cannot delete itself`);
    await this.keepAnAdmin(current._id, current.groups, []);
    const view = await this.view(current);
    await this.accounts.deleteOne({ _id: id });
    await this.endSessions(id);
    await this.options.emit('account', id, 'accountChanged', { accountId: id, reason: 'deleted' });
    return view;
  }

  // ---- groups ----

  async createGroup(input: NewGroup, by: string): Promise<GroupRecord> {
    const now = new Date().toISOString();
    try {
      return await this.groups.insertOne({
        _id: randomUUID(),
        name: input.name,
        description: input.description ?? '',
        roles: [...new Set(input.roles ?? [])],
        created: now,
        createdBy: by,
        lastUpdated: now,
        lastUpdatedBy: by,
      });
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('GROUP_ALREADY_EXISTS', `A group named "${input.name}" already exists`, { cause: err });
      throw err;
    }
  }

  async getGroup(id: string): Promise<GroupRecord> {
    const group = await this.groups.findOne({ _id: id });
    if (!group) throw new AppError('GROUP_NOT_FOUND', `No group with id "${id}"`);
    return group;
  }

  /** A page of groups by the shared list options (every group up to 500 when no limit is given). */
  async listGroups(options: ListQueryOptions = {}): Promise<{ results: GroupRecord[]; total: number }> {
    const query = toListQuery(options, GROUP_LIST_FIELDS);
    const [results, total] = await Promise.all([
      this.groups.find(query.filter, { sort: query.sort, skip: query.skip, limit: query.limit }),
      this.groups.countDocuments(query.filter),
    ]);
    return { results, total };
  }

  async setGroupRoles(id: string, roles: Role[], by: string): Promise<GroupRecord> {
    const group = await this.getGroup(id);
    if (group.roles.includes('admin') && !roles.includes('admin')) await this.keepAdminRole(id);
    const updated = await this.groups.findOneAndUpdate(
      { _id: id },
      { $set: { roles: [...new Set(roles)], lastUpdated: new Date().toISOString(), lastUpdatedBy: by } },
      { returnDocument: 'after' },
    );
    if (!updated) throw new AppError('GROUP_NOT_FOUND', `No group with id "${id}"`);
    await this.options.emit('group', id, 'groupChanged', { groupId: id });
    return updated;
  }

  async deleteGroup(id: string): Promise<GroupRecord> {
    const group = await this.getGroup(id);
    if (group.roles.includes('admin')) await this.keepAdminRole(id);
    await this.groups.deleteOne({ _id: id });
    await this.accounts.updateMany({ groups: id }, { $pull: { groups: id } });
    await this.options.emit('group', id, 'groupChanged', { groupId: id });
    return group;
  }

  // ---- authentication ----

  /** Checks a username and password; the caller they stand for, or 401. */
  async authenticate(username: string, password: string): Promise<Caller> {
    const account = await this.accounts.findOne({ username });
    // hash anyway when the account is unknown, so timing does not tell which usernames exist
    const ok = await verifyPassword(
      password,
      account?.passwordHash ?? 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    );
    if (!account || !ok) throw new AppError('UNAUTHENTICATED', `The username or password of "${username}" is wrong`);
    if (account.inactive) throw new AppError('UNAUTHENTICATED', `Account "${username}" is inactive`);
    return this.callerOf(account);
  }

  async issueToken(caller: Caller, method: string): Promise<IssuedToken> {
    const signing = await this.signingKey();
    const sid = randomUUID();
    const now = Date.now();
    const ttlSeconds = this.options.sessions.tokenTtlSeconds;
    const expiresAt = now + ttlSeconds * 1000;
    await this.sessions.insertOne({
      _id: sid,
      accountId: caller.id,
      username: caller.username,
      method,
      created: new Date(now).toISOString(),
      expiresAt,
      lastUsed: now,
      revoked: false,
    });
    const token = signToken(
      { sid, sub: caller.id, iat: Math.floor(now / 1000), exp: Math.floor(expiresAt / 1000), kid: signing.kid },
      signing.key,
    );
    return { token, sid, expiresIn: ttlSeconds };
  }

  /** The caller a live session stands for, with roles as they are now; 401 when it ended. */
  async resolveSession(sid: string): Promise<Caller> {
    const session = await this.sessions.findOne({ _id: sid });
    const now = Date.now();
    if (!session || session.revoked || session.expiresAt <= now)
      throw new AppError('UNAUTHENTICATED', 'The session has ended; log in again');
    const idleMinutes = this.options.sessions.sessionIdleMinutes;
    const lastUsed = session.lastUsed ?? Date.parse(session.created);
    if (idleMinutes !== undefined && now - lastUsed > idleMinutes * 60_000 + SESSION_USE_GRANULARITY_MS) {
      await this.endSession(sid);
      throw new AppError(
        'UNAUTHENTICATED',
        `The session was unused for more than ${idleMinutes} minutes (the active profile's authenticationProps.logoutTime); log in again`,
      );
    }
    await this.sessions.updateOne({ _id: sid }, { $set: { lastUsed: now } });
    const account = await this.accounts.findOne({ _id: session.accountId });
    if (!account || account.inactive) throw new AppError('UNAUTHENTICATED', 'The account of this session no longer exists or is inactive');
    return { ...(await this.callerOf(account)), sid };
  }

  async getSession(sid: string): Promise<SessionRecord> {
    const session = await this.sessions.findOne({ _id: sid });
    if (!session) throw new AppError('UNAUTHENTICATED', 'The session has ended; log in again');
    return session;
  }

  async endSession(sid: string): Promise<void> {
    const session = await this.sessions.findOneAndUpdate({ _id: sid }, { $set: { revoked: true } });
    if (session) await this.options.emit('session', sid, 'sessionRevoked', { sid, exp: Math.floor(session.expiresAt / 1000) });
  }

  async publicKeys(): Promise<TokenPublicKey[]> {
    const signing = await this.signingKey();
    return [{ kid: signing.kid, publicKeyPem: signing.publicKeyPem }];
  }

  // ---- start-up ----

  /** First start: the `admins` group with role admin and the first administrator account. */
  async bootstrap(username: string, password: string): Promise<{ created: boolean }> {
    if ((await this.accounts.countDocuments({})) > 0) return { created: false };
    let group = await this.groups.findOne({ name: 'admins' });
    if (!group) {
      try {
        group = await this.createGroup({ name: 'admins', description: 'Platform administrators', roles: ['admin'] }, 'system');
      } catch (err) {
        if (!hasCode(err, 'GROUP_ALREADY_EXISTS')) throw err;
        group = await this.groups.findOne({ name: 'admins' });
      }
    }
    try {
      await this.createAccount({ username, password, groups: group ? [group._id] : [] }, 'system');
      return { created: true };
    } catch (err) {
      if (hasCode(err, 'ACCOUNT_ALREADY_EXISTS')) return { created: false };
      throw err;
    }
  }

  /** Loads the token signing key, generating it once (replicas race safely on one document). */
  async signingKey(): Promise<{ kid: string; key: KeyObject; publicKeyPem: string }> {
    if (this.signing) return this.signing;
    let record = await this.keys.findOne({ _id: SIGNING_KEY_ID });
    if (!record) {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      const candidate = {
        kid: randomUUID(),
        publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        privateKeySealed: this.options.secrets.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
        created: new Date().toISOString(),
      };
      await this.keys.updateOne({ _id: SIGNING_KEY_ID }, { $setOnInsert: candidate }, { upsert: true });
      record = await this.keys.findOne({ _id: SIGNING_KEY_ID });
      if (!record) throw new AppError('INTERNAL', 'The token signing key could not be stored');
    }
    let key: KeyObject;
    try {
      key = createPrivateKey(this.options.secrets.open(record.privateKeySealed));
    } catch (err) {
      throw new AppError('INTERNAL', 'The token signing key cannot be opened: NAP_SECRET_KEY differs from the one it was sealed with', {
        cause: err,
      });
    }
    this.signing = { kid: record.kid, key, publicKeyPem: record.publicKeyPem };
    return this.signing;
  }

  // ---- helpers ----

  async callerOf(account: AccountRecord): Promise<Caller> {
    return { id: account._id, username: account.username, roles: await this.rolesOf(account.groups), groups: [...account.groups] };
  }

  private async account(id: string): Promise<AccountRecord> {
    const account = await this.accounts.findOne({ _id: id });
    if (!account) throw accountNotFound(id);
    return account;
  }

  private async rolesOf(groupIds: string[]): Promise<Role[]> {
    if (groupIds.length === 0) return [];
    const groups = await this.groups.find({ _id: { $in: groupIds } });
    return [...new Set(groups.flatMap((g) => g.roles))].filter(isRole).sort();
  }

  private async groupMap(): Promise<Map<string, GroupRecord>> {
    return new Map((await this.groups.find({})).map((g) => [g._id, g]));
  }

  private async view(account: AccountRecord): Promise<AccountView> {
    const groups = account.groups.length
      ? new Map((await this.groups.find({ _id: { $in: account.groups } })).map((g) => [g._id, g]))
      : new Map<string, GroupRecord>();
    return this.viewWith(account, groups);
  }

  /** The members an account shows, named one by one: whatever else a stored record holds (its password hash) stays in the store. */
  private viewWith(account: AccountRecord, groups: Map<string, GroupRecord>): AccountView {
    const roles = [...new Set(account.groups.flatMap((id) => groups.get(id)?.roles ?? []))].sort();
    return {
      _id: account._id,
      username: account.username,
      ...(account.firstname !== undefined ? { firstname: account.firstname } : {}),
      ...(account.lastname !== undefined ? { lastname: account.lastname } : {}),
      ...(account.email !== undefined ? { email: account.email } : {}),
      groups: [...account.groups],
      inactive: account.inactive,
      created: account.created,
      createdBy: account.createdBy,
      lastUpdated: account.lastUpdated,
      lastUpdatedBy: account.lastUpdatedBy,
      roles,
    };
  }

  private async checkGroups(ids: string[], member: string): Promise<string[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const found = new Set((await this.groups.find({ _id: { $in: unique } }, { projection: { _id: 1 } })).map((g) => g._id));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new AppError('VALIDATION_FAILED', `${member} names groups that do not exist: ${missing.join(', ')}`, {
        details: missing.map((id) => ({ member, message: `group "${id}" does not exist` })),
      });
    }
    return unique;
  }

  /** Refuses a change that would leave no active account holding the admin role. */
  private async keepAnAdmin(accountId: string, before: string[], after: string[]): Promise<void> {
    const adminGroups = (await this.groups.find({ roles: 'admin' })).map((g) => g._id);
    const wasAdmin = before.some((g) => adminGroups.includes(g));
    const staysAdmin = after.some((g) => adminGroups.includes(g));
    if (!wasAdmin || staysAdmin) return;
    const others = await this.accounts.countDocuments({ _id: { $ne: accountId }, inactive: false, groups: { $in: adminGroups } });
    if (others === 0) throw new AppError('ACCOUNT_PROTECTED', 'The change would leave no active account with the admin role');
  }

  private async keepAdminRole(groupId: string): Promise<void> {
    const otherAdminGroups = (await this.groups.find({ roles: 'admin', _id: { $ne: groupId } })).map((g) => g._id);
    const others = otherAdminGroups.length ? await this.accounts.countDocuments({ inactive: false, groups: { $in: otherAdminGroups } }) : 0;
    if (others === 0) throw new AppError('ACCOUNT_PROTECTED', 'The change would leave no active account with the admin role');
  }

  private async endSessions(accountId: string): Promise<void> {
    await this.sessions.updateMany({ accountId, revoked: false }, { $set: { revoked: true } });
  }
}

function accountNotFound(id: string): AppError {
  return new AppError('ACCOUNT_NOT_FOUND', `No account with id "${id}"`);
}
