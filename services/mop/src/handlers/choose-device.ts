import type { Handler } from '@nap/bus';
import { listInventory } from '../clients/device-gateway';
import { loadTask } from '../clients/workflow-jobs';
import { incomingOf, manualTaskAnswer } from '../domain/manual-tasks';

/** `GET /mop/task/chooseDevice`: the devices offered to the task (or the whole inventory) to choose one from. */
export function chooseDevice(): Handler<'mop.chooseDevice'> {
  return async (input, ctx) => {
    const { job, task } = await loadTask(ctx, input.query);
    const incoming = incomingOf(job, task);
    const offered = Array.isArray(incoming.devices) ? incoming.devices.map(String) : undefined;
    const devices = offered ?? (await listInventory(ctx)).map((d) => d.name);
    return manualTaskAnswer('chooseDevice', input.query, task, {
      devices,
      incoming,
      decide: 'Finish the task with variables { device: <one of devices> }',
    });
  };
}
