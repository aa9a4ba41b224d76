import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import type { EmbeddedStore, Filter, FindOptions, Store } from '@nap/store';
import { AccountRepository } from '../src/store/accounts';
import { GroupRepository } from '../src/store/groups';

/**
 * The account and group lists sort by name letter case aside (`alice`, `Bob`, `Zed`, never `Bob`,
 * `Zed`, `alice`), through an index on the stored lower-case key on the embedded store (and MongoDB:
 * the same index and sort); records stored before the key get it at start.
 */

let platform: TestPlatform;
let token: string;
let store: Store;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  const admin = platform.stores.get('admin');
  if (admin === undefined) throw new Error('the test platform has no admin store');
  store = admin;
});

afterAll(async () => {
  await platform?.stop();
});

type Named = { _id: string; username?: string; name?: string };

async function list(path: string): Promise<Named[]> {
  const res = await platform.http('GET', path, { token });
  expect(res.status).toBe(200);
  return (res.body as { results: Named[] }).results;
}

async function createAccount(username: string): Promise<void> {
  const res = await platform.http('POST', '/user-management/accounts', {
    token,
    body: { account: { username, password: 'password-123', groups: [] } },
  });
  expect(res.status).toBe(200);
}

async function createGroup(name: string): Promise<void> {
  expect((await platform.http('POST', '/user-management/groups', { token, body: { group: { name } } })).status).toBe(200);
}

/** The embedded store's account of how it ran a query (the test platform runs on it). */
function explainer(): EmbeddedStore {
  if (!('explain' in store)) throw new Error('the test platform does not run on the embedded store');
  return store as EmbeddedStore;
}

type Find = { filter: Filter; options: FindOptions };

/** The admin store, the finds on `collection` noted in `finds`. */
function recording(collection: string, finds: Find[]): Store {
  const bound = (target: object, member: unknown): unknown =>
    typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(target) : member;
  return new Proxy(store, {
    get(target, prop) {
      if (prop !== 'collection') return bound(target, Reflect.get(target, prop, target));
      return (name: string) => {
        const real = target.collection(name);
        if (name !== collection) return real;
        return new Proxy(real, {
          get(c, member) {
            if (member !== 'find') return bound(c, Reflect.get(c, member, c));
            return (filter: Filter, options: FindOptions = {}) => {
              finds.push({ filter, options });
              return real.find(filter, options);
            };
          },
        });
      };
    },
  });
}

describe('the account list', () => {
  beforeAll(async () => {
    for (const username of ['Zed', 'alice', 'olga', 'Bob', 'OLGA', 'carol']) await createAccount(username);
  });

  it('sorts by username letter case aside, names that differ only in case capitals first, both ways and page after page', async () => {
    const expected = ['admin', 'alice', 'Bob', 'carol', 'OLGA', 'olga', 'Zed'];
    expect((await list('/user-management/accounts')).map((a) => a.username)).toEqual(expected);
    expect((await list('/user-management/accounts?sort=username&order=1')).map((a) => a.username)).toEqual(expected);
    expect((await list('/authorization/accounts?sort=username&order=-1')).map((a) => a.username)).toEqual([...expected].reverse());
    const pages: string[] = [];
    for (let skip = 0; skip < expected.length; skip += 2)
      pages.push(...(await list(`/user-management/accounts?sort=username&skip=${skip}&limit=2`)).map((a) => a.username ?? ''));
    expect(pages).toEqual(expected);
    // filtered, in the same order
    expect((await list('/user-management/accounts?contains[username]=l')).map((a) => a.username)).toEqual([
      'alice',
      'carol',
      'OLGA',
      'olga',
    ]);
  });

  it('answers no sort key: it is the store’s', async () => {
    const accounts = await list('/user-management/accounts');
    for (const account of accounts) expect(account).not.toHaveProperty('usernameKey');
    const one = await platform.http('GET', `/user-management/accounts/${accounts[0]?._id ?? ''}`, { token });
    expect(one.body).not.toHaveProperty('usernameKey');
  });

  it('is read in order from the usernameKey index, both ways', async () => {
    for (const order of [1, -1] as const) {
      const finds: Find[] = [];
      await new AccountRepository(recording('accounts', finds)).list({ sort: 'username', order, limit: 3 });
      expect(finds).toHaveLength(1);
      const plan = await explainer().explain('accounts', finds[0]?.filter, finds[0]?.options);
      expect({ order, ...plan }).toMatchObject({
        order,
        plan: 'index',
        index: 'usernameKey_1_username_1__id_1',
        sortedByIndex: true,
        docsExamined: 3,
      });
    }
  });

  it('gives accounts stored before the key theirs, so that they sort with the others', async () => {
    const stamp = new Date().toISOString();
    await store.collection('accounts').insertOne({
      _id: 'stored-before-the-key',
      username: 'Brenda',
      groups: [],
      inactive: false,
      passwordHash: '',
      created: stamp,
      createdBy: 'system',
      lastUpdated: stamp,
      lastUpdatedBy: 'system',
    });
    // what the service does at start
    const accounts = new AccountRepository(store);
    expect(await accounts.backfillSortKeys()).toBe(1);
    expect(await accounts.backfillSortKeys()).toBe(0);
    expect((await list('/user-management/accounts?limit=4')).map((a) => a.username)).toEqual(['admin', 'alice', 'Bob', 'Brenda']);
  });
});

describe('the group list', () => {
  beforeAll(async () => {
    for (const name of ['Zulu', 'alpha', 'Bravo', 'charlie']) await createGroup(name);
  });

  it('sorts by name letter case aside, both ways', async () => {
    const expected = ['admins', 'alpha', 'Bravo', 'charlie', 'Zulu'];
    expect((await list('/user-management/groups')).map((g) => g.name)).toEqual(expected);
    expect((await list('/authorization/groups?sort=name&order=-1')).map((g) => g.name)).toEqual([...expected].reverse());
    for (const group of await list('/user-management/groups')) expect(group).not.toHaveProperty('nameKey');
  });

  it('is read in order from the nameKey index, and groups stored before the key get theirs', async () => {
    const finds: Find[] = [];
    await new GroupRepository(recording('groups', finds)).list({ limit: 2 });
    expect(finds).toHaveLength(1);
    const plan = await explainer().explain('groups', finds[0]?.filter, finds[0]?.options);
    expect(plan).toMatchObject({ plan: 'index', index: 'nameKey_1_name_1__id_1', sortedByIndex: true, docsExamined: 2 });
    const stamp = new Date().toISOString();
    await store.collection('groups').insertOne({
      _id: 'group-before-the-key',
      name: 'Alder',
      description: '',
      roles: [],
      created: stamp,
      createdBy: 'system',
      lastUpdated: stamp,
      lastUpdatedBy: 'system',
    });
    expect(await new GroupRepository(store).backfillSortKeys()).toBe(1);
    expect((await list('/user-management/groups')).map((g) => g.name).slice(0, 3)).toEqual(['admins', 'Alder', 'alpha']);
  });
});
