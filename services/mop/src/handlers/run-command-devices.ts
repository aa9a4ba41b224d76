import type { Handler } from '@nap/bus';
import { assertNoMisspelledBody } from '@nap/contracts';
import { commandRunner, sendCommands } from '../clients/device-gateway';
import type { MopContext } from '../context';
import { commandExpansions, commandOutputs } from '../domain/commands';

/** `POST /mop/RunCommandDevices`: a command on devices in parallel; one entry per device (per list element). */
export function runCommandDevices(svc: MopContext): Handler<'mop.RunCommandDevices'> {
  return async (input, ctx) => {
    assertNoMisspelledBody(ctx.operation, input.body);
    const { command } = input.body;
    const expansions = commandExpansions(command, input.body.variables ?? {});
    const devices = [...new Set(input.body.devices)];
    const sends = expansions.map((e) => e.evaluated);
    const answered = await sendCommands(commandRunner(ctx), devices, sends, svc.deviceConcurrency);
    return commandOutputs(command, expansions, answered);
  };
}
