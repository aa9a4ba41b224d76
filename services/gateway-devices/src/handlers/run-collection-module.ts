import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Runs a module of a collection ad hoc. */
export function runCollectionModule(g: GatewayContext): Handler<'gateway-devices.runCollectionModule'> {
  return async (input) =>
    loggedRun(
      g.logger,
      `collection module ${input.body.name}`,
      await g.runners.ansible.runCollectionModule(input.body.collection, input.body),
    );
}
