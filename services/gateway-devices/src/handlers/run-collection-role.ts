import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Runs a role of a collection in a generated play. */
export function runCollectionRole(g: GatewayContext): Handler<'gateway-devices.runCollectionRole'> {
  return async (input) =>
    loggedRun(g.logger, `collection role ${input.body.name}`, await g.runners.ansible.runCollectionRole(input.body.collection, input.body));
}
