import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Runs a role of a collection in a generated play. */
export function runCollectionRole(svc: GatewayDevicesContext): Handler<'gateway-devices.runCollectionRole'> {
  return async (input) =>
    loggedRun(svc, `collection role ${input.body.name}`, await svc.runners.ansible.runCollectionRole(input.body.collection, input.body));
}
