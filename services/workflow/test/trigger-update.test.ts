import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SYSTEM_CALLER } from '@nap/contracts';
import { createEmbeddedStore } from '@nap/store';
import type { EmbeddedStore } from '@nap/store';
import { toTriggerRecord } from '../src/domain/trigger-model';
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
  triggers = new TriggerRepository(store);
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
