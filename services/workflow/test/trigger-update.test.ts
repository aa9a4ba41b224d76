import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SECRET_MASK, SYSTEM_CALLER } from '@nap/contracts';
import { createSecretBox } from '@nap/runtime';
import { createEmbeddedStore } from '@nap/store';
import type { EmbeddedStore } from '@nap/store';
import { toPublicTrigger, toTriggerRecord } from '../src/domain/trigger-model';
import type { TriggerRecord } from '../src/domain/trigger-model';
import { TriggerRepository } from '../src/store/trigger-repository';

/**
 * An update of a trigger is made from the trigger as read before it; the schedule runner may fire it
 * in between. On a real embedded store: what the runner wrote meanwhile is not written back over.
 */

const HOUR = 3_600_000;
let dir: string;
let store: EmbeddedStore;
let triggers: TriggerRepository;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-trigger-update-'));
  store = createEmbeddedStore({ path: path.join(dir, 'db') });
  triggers = new TriggerRepository(store, createSecretBox('trigger-update-test-secret-key-32c'));
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function hourlySchedule(now: number): Promise<TriggerRecord> {
  const record = toTriggerRecord(
    { name: 'hourly', type: 'schedule', actionId: 'a', firstRunAt: HOUR, repeatUnit: 'hour', formData: { who: 'x' } },
    'body',
    SYSTEM_CALLER,
    now,
    { newId: () => 't1' },
  );
  return triggers.insert(record);
}

/** The runner fires the due time `due` of the schedule and moves it on. */
async function fire(due: number): Promise<void> {
  expect(await triggers.claimDue('t1', 'engine-1', due, 60_000)).not.toBeNull();
  await triggers.markExecuted('t1', due + 5);
  expect(await triggers.advance('t1', 'engine-1', due, due + HOUR, due)).toBe(true);
}

it('keeps the due times the runner moved on while an update was made from the trigger read before', async () => {
  await hourlySchedule(0);
  const read = await triggers.get('t1');
  await fire(HOUR);
  const renamed = toTriggerRecord({ name: 'renamed', formData: {} }, 'body', SYSTEM_CALLER, HOUR + 10, {
    existing: read,
    newId: () => 'x',
  });
  const stored = await triggers.update(read, renamed);
  expect(stored).toMatchObject({ name: 'renamed', formData: {}, nextRunAt: 2 * HOUR, lastRunAt: HOUR, lastExecuted: HOUR + 5 });
  expect(await triggers.get('t1')).toEqual(stored);
});

it('keeps the claim of a fire under way, so that the runner moves the schedule on after it', async () => {
  await hourlySchedule(0);
  const read = await triggers.get('t1');
  expect(await triggers.claimDue('t1', 'engine-1', HOUR, 60_000)).not.toBeNull();
  const disabled = toTriggerRecord({ enabled: false }, 'body', SYSTEM_CALLER, HOUR + 10, { existing: read, newId: () => 'x' });
  expect(await triggers.update(read, disabled)).toMatchObject({ enabled: false, fire: { serverId: 'engine-1' } });
  expect(await triggers.advance('t1', 'engine-1', HOUR, 2 * HOUR, HOUR)).toBe(true);
  expect(await triggers.get('t1')).toMatchObject({ enabled: false, nextRunAt: 2 * HOUR, lastRunAt: HOUR });
});

it('writes the due time an update moved (a new timing), dropping a claim under way so the old timing is not moved on over it', async () => {
  await hourlySchedule(0);
  const read = await triggers.get('t1');
  expect(await triggers.claimDue('t1', 'engine-1', HOUR, 60_000)).not.toBeNull();
  const daily = toTriggerRecord({ repeatUnit: 'day' }, 'body', SYSTEM_CALLER, HOUR + 10, { existing: read, newId: () => 'x' });
  const stored = await triggers.update(read, daily);
  expect(stored).toMatchObject({ repeatUnit: 'day', repeatInterval: 24 * HOUR, nextRunAt: 25 * HOUR, lastRunAt: null });
  expect(stored).not.toHaveProperty('fire');
  expect(await triggers.advance('t1', 'engine-1', HOUR, 2 * HOUR, HOUR)).toBe(false);
  expect(await triggers.get('t1')).toMatchObject({ nextRunAt: 25 * HOUR });
});

it('removes the members an update leaves out, and answers null for a trigger that is gone', async () => {
  await hourlySchedule(0);
  const read = await triggers.get('t1');
  const once = toTriggerRecord({ repeatUnit: null }, 'body', SYSTEM_CALLER, 10, { existing: read, newId: () => 'x' });
  const stored = await triggers.update(read, once);
  expect(stored).toMatchObject({ repeatUnit: null, nextRunAt: HOUR });
  expect(stored).not.toHaveProperty('repeatFrequency');
  expect(stored).not.toHaveProperty('repeatInterval');
  await triggers.delete('t1');
  expect(await triggers.update(read, once)).toBeNull();
});

describe('secrets in formData', () => {
  const raw = async (): Promise<Record<string, unknown> | null> =>
    store.collection<{ _id: string } & Record<string, unknown>>('triggers').findOne({ _id: 't1' });
  const schedule = (formData: Record<string, unknown>, existing?: TriggerRecord): TriggerRecord =>
    toTriggerRecord(
      { name: 'hourly', type: 'schedule', actionId: 'a', firstRunAt: HOUR, repeatUnit: 'hour', formData },
      'body',
      SYSTEM_CALLER,
      0,
      {
        newId: () => 't1',
        ...(existing ? { existing } : {}),
      },
    );

  it('stores them masked and sealed, answers the trigger whole, and unseals nothing once they are gone', async () => {
    const formData = { device: 'r1', creds: { username: 'ops', password: 'hunter2-in-a-schedule' }, api_token: 'tok-123456' };
    expect(await triggers.insert(schedule(formData))).toMatchObject({ formData });
    const stored = await raw();
    expect(stored?.formData).toEqual({ device: 'r1', creds: { username: 'ops', password: SECRET_MASK }, api_token: SECRET_MASK });
    expect(JSON.stringify(stored)).not.toMatch(/hunter2|tok-123/);
    expect(typeof stored?.sealedFormData).toBe('string');
    expect(await triggers.get('t1')).toMatchObject({ formData });
    expect(await triggers.get('t1')).not.toHaveProperty('sealedFormData');
    expect((await triggers.claimDue('t1', 'engine-1', HOUR, 60_000))?.formData).toEqual(formData);

    // written back as a client read it (masked): the secrets stay; a member changed beside them is kept
    const read = await triggers.get('t1');
    const masked = { device: 'r2', creds: { username: 'ops', password: SECRET_MASK }, api_token: SECRET_MASK };
    expect((await triggers.update(read, schedule(masked, read)))?.formData).toEqual({ ...formData, device: 'r2' });

    // no secret any more: nothing sealed is left behind
    const again = await triggers.get('t1');
    expect(await triggers.update(again, schedule({ device: 'r3' }, again))).toMatchObject({ formData: { device: 'r3' } });
    expect(await raw()).not.toHaveProperty('sealedFormData');
  });

  it('seals and masks what its form declares secret (secretPaths) as it does secret names, and restores it when written back', async () => {
    const formData = { device: 'r1', devicePass: 'declared-by-the-form' };
    const declared = { ...schedule(formData), secretPaths: [['devicePass']] };
    expect(toPublicTrigger(await triggers.insert(declared)).formData).toEqual({ device: 'r1', devicePass: SECRET_MASK });
    expect(JSON.stringify(await raw())).not.toContain('declared-by-the-form');
    const read = await triggers.get('t1');
    expect(read.formData).toEqual(formData);
    const back = await triggers.update(read, {
      ...schedule({ device: 'r2', devicePass: SECRET_MASK }, read),
      secretPaths: [['devicePass']],
    });
    expect(back?.formData).toEqual({ device: 'r2', devicePass: 'declared-by-the-form' });
    // a mask where the form declares a secret and none is stored would become the secret: refused
    expect(() => schedule({ devicePass: SECRET_MASK }, { ...read, formData: {} })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        details: [{ member: 'body.formData.devicePass', message: 'give the secret itself' }],
      }),
    );
  });

  it('lists triggers without opening their secrets, and says so when a secret cannot be opened (another NAP_SECRET_KEY)', async () => {
    await triggers.insert(schedule({ password: 'sealed-under-the-first-key', site: 'ams' }));
    const otherKey = new TriggerRepository(store, createSecretBox('another-secret-key-of-32-chars-xx'));
    const page = await otherKey.page({ filter: {}, sort: { _id: 1 }, skip: 0, limit: 10 });
    expect(page.items.map((t) => t.formData)).toEqual([{ password: SECRET_MASK, site: 'ams' }]);
    expect(page.items[0]).not.toHaveProperty('sealedFormData');
    await expect(otherKey.get('t1')).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('was NAP_SECRET_KEY changed?'),
    });
  });

  it('refuses a mask where no secret is stored, naming the member', () => {
    expect(() => schedule({ password: SECRET_MASK })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        details: [{ member: 'body.formData.password', message: 'give the secret itself' }],
      }),
    );
  });

  it('seals the secrets of a trigger an earlier release stored in clear, once', async () => {
    const formData = { password: 'hunter2-stored-in-clear', site: 'ams' };
    await store.collection<{ _id: string } & Record<string, unknown>>('triggers').insertOne({ ...schedule(formData) });
    await store.collection<{ _id: string } & Record<string, unknown>>('triggers').insertOne({ ...schedule({ site: 'x' }), _id: 't2' });
    expect(await triggers.sealStoredSecrets()).toBe(1);
    expect(await triggers.sealStoredSecrets()).toBe(0);
    expect(JSON.stringify(await raw())).not.toContain('hunter2');
    expect((await triggers.get('t1')).formData).toEqual(formData);
  });
});
