import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { ResponseOf } from '@nap/contracts';
import type { MopContext } from '../context';
import { mapLimit } from '../domain/run';
import { expandCommand } from '../domain/variables';
import { busCommandRunner } from './devices';

/** One entry of the answer: one command on one device. */
type CommandOutput = ResponseOf<'mop.RunCommandDevices'>[number];

/** `POST /mop/RunCommandDevices`: a command on devices in parallel; one entry per device (per list element). */
export function runCommandDevices(svc: MopContext): Handler<'mop.RunCommandDevices'> {
  return async (input, ctx) => {
    const { command } = input.body;
    const expansion = expandCommand(command, input.body.variables ?? {});
    if (expansion.kind === 'skip')
      throw new AppError('MOP_VARIABLE_MISSING', `${expansion.message.replace(/^Skipped: /, '')} in "${command}"`);
    const run = busCommandRunner(ctx);
    const perDevice = await mapLimit([...new Set(input.body.devices)], svc.deviceConcurrency, async (device) => {
      const out: CommandOutput[] = [];
      for (const { evaluated, parameters } of expansion.expansions) {
        try {
          out.push({ raw: command, evaluated, device, response: await run(device, evaluated), parameters });
        } catch (err) {
          out.push({ raw: command, evaluated, device, response: '', parameters, error: err instanceof Error ? err.message : String(err) });
        }
      }
      return out;
    });
    return perDevice.flat();
  };
}
