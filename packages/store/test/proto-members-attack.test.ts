/**
 * A member named `__proto__` (JSON.parse makes them as own members, so user data carries them) is
 * stored and read back as an ordinary member at any depth: never dropped, never made the prototype
 * of a stored or answered object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStore, type Collection, type Doc, type EmbeddedStore } from '../src/index';

let dir: string;
let store: EmbeddedStore;
let devices: Collection<Doc>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'proto-members-'));
  store = createEmbeddedStore({ path: dir });
  devices = store.collection<Doc>('devices');
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function own(json: string): Record<string, unknown> {
  return JSON.parse(json) as Record<string, unknown>;
}

/** The own `__proto__` member of `value` at `path`, and that no object on the way inherits `polluted`. */
function protoMember(value: unknown, ...path: string[]): unknown {
  let at = value as Record<string, unknown>;
  for (const p of path) at = at[p] as Record<string, unknown>;
  expect(Object.getPrototypeOf(at)).toBe(Object.prototype);
  expect(at.polluted).toBeUndefined();
  return Object.getOwnPropertyDescriptor(at, '__proto__')?.value;
}

it('a nested __proto__ member is inserted, answered and read back as a member', async () => {
  const inserted = await devices.insertOne({ name: 'a', variables: own('{"nested": {"__proto__": {"polluted": "yes"}, "x": 1}}') });
  expect(protoMember(inserted, 'variables', 'nested')).toEqual({ polluted: 'yes' });
  const read = await devices.findOne({ name: { $eq: 'a' } });
  expect(Object.keys((read?.variables as { nested: object }).nested)).toEqual(['__proto__', 'x']);
  expect(protoMember(read, 'variables', 'nested')).toEqual({ polluted: 'yes' });
});

it('a value holding __proto__ set by an update or a replacement keeps it', async () => {
  await devices.insertOne({ name: 'b', variables: {} });
  const updated = await devices.findOneAndUpdate(
    { name: { $eq: 'b' } },
    { $set: { 'variables.other': own('{"__proto__": {"polluted": "yes"}, "x": 1}') } },
    { returnDocument: 'after' },
  );
  expect(protoMember(updated, 'variables', 'other')).toEqual({ polluted: 'yes' });
  expect(protoMember(await devices.findOne({ name: { $eq: 'b' } }), 'variables', 'other')).toEqual({ polluted: 'yes' });

  await devices.replaceOne({ name: { $eq: 'b' } }, { name: 'b', variables: own('{"__proto__": {"polluted": "again"}}') });
  expect(protoMember(await devices.findOne({ name: { $eq: 'b' } }), 'variables')).toEqual({ polluted: 'again' });
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
