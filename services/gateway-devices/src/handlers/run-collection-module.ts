import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Runs a module of a collection ad hoc. */
export function runCollectionModule(svc: GatewayDevicesContext): Handler<'gateway-devices.runCollectionModule'> {
  return async (input) =>
    loggedRun(
      svc,
      `collection module ${input.body.name}`,
      await svc.runners.ansible.runCollectionModule(input.body.collection, input.body),
    );
}
