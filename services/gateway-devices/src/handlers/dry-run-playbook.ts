import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Runs a playbook in check mode (`--check`). */
export function dryRunPlaybook(g: GatewayContext): Handler<'gateway-devices.dryRunPlaybook'> {
  return async (input) => loggedRun(g.logger, `playbook ${input.body.name} --check`, await g.runners.ansible.runPlaybook(input.body, true));
}
