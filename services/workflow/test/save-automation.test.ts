import { AppError, SYSTEM_CALLER } from '@nap/contracts';
import type { WorkflowContext } from '../src/context';
import { saveAutomation } from '../src/context';

/**
 * saveAutomation's all-or-nothing over two collections, with the store failing where a test says:
 * an automation whose trigger the store refuses is taken away again, and when that fails too the
 * caller is told what stayed and what to do.
 */
function fakeService(options: { refuseTrigger: string; undoFails?: boolean }) {
  const automations = new Map<string, unknown>();
  const triggers = new Map<string, { actionId: string }>();
  let invalidated = 0;
  const svc = {
    automations: {
      insertAutomation: async (doc: { _id: string }) => {
        automations.set(doc._id, doc);
        return doc;
      },
      deleteAutomation: async (id: string) => {
        if (options.undoFails) throw new AppError('STORE_UNAVAILABLE', 'the store is closed');
        return automations.delete(id) ? 1 : 0;
      },
    },
    triggers: {
      insert: async (doc: { _id: string; name: string; actionId: string }) => {
        if (doc.name === options.refuseTrigger) throw new AppError('TRIGGER_ALREADY_EXISTS', `route of "${doc.name}" in use`);
        triggers.set(doc._id, doc);
        return doc;
      },
      deleteByAction: async (actionId: string) => {
        let deleted = 0;
        for (const [id, t] of triggers) if (t.actionId === actionId && triggers.delete(id)) deleted += 1;
        return deleted;
      },
    },
    eventTriggers: { invalidate: () => void (invalidated += 1) },
  } as unknown as WorkflowContext;
  return { svc, automations, triggers, invalidated: () => invalidated };
}

const exported = {
  _id: 'auto-1',
  name: 'exported',
  triggers: [
    { _id: 'trig-1', name: 'first', type: 'manual' },
    { _id: 'trig-2', name: 'second', type: 'endpoint', verb: 'POST', routeName: 'taken' },
  ],
};

describe('saveAutomation', () => {
  it('takes the automation and its stored triggers away again when the store refuses one, and answers why', async () => {
    const world = fakeService({ refuseTrigger: 'second' });
    await expect(saveAutomation(world.svc, exported, 'body.automations[0]', SYSTEM_CALLER, true)).rejects.toMatchObject({
      code: 'TRIGGER_ALREADY_EXISTS',
    });
    expect([...world.automations.keys()]).toEqual([]);
    expect([...world.triggers.keys()]).toEqual([]);
    // the event triggers are read again whatever happened (one was stored for a moment)
    expect(world.invalidated()).toBe(1);
  });

  it('says what stayed when taking it away fails too', async () => {
    const world = fakeService({ refuseTrigger: 'second', undoFails: true });
    const refused = saveAutomation(world.svc, exported, 'body.automations[0]', SYSTEM_CALLER, true);
    await expect(refused).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('DELETE /operations-manager/automations/auto-1'),
    });
    await expect(refused).rejects.toMatchObject({ message: expect.stringContaining('route of "second" in use') });
  });

  it('stores nothing when a trigger is refused by its check, before any write', async () => {
    const world = fakeService({ refuseTrigger: 'none' });
    const bad = { ...exported, triggers: [exported.triggers[0], { name: 'no route', type: 'endpoint', verb: 'POST' }] };
    await expect(saveAutomation(world.svc, bad, 'body.automations[0]', SYSTEM_CALLER, true)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('body.automations[0].triggers[1].routeName'),
    });
    expect(world.automations.size + world.triggers.size).toBe(0);
  });

  it('refuses two triggers with one id, naming the second', async () => {
    const world = fakeService({ refuseTrigger: 'none' });
    const twice = { ...exported, triggers: [exported.triggers[0], { ...exported.triggers[0], name: 'again' }] };
    await expect(saveAutomation(world.svc, twice, 'body.automations[0]', SYSTEM_CALLER, true)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ member: 'body.automations[0].triggers[1]._id' }],
    });
    expect(world.automations.size).toBe(0);
  });
});
