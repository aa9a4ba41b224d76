import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { expandCommand, variablesIn } from '../domain/variables';
import { busCommandRunner } from './devices';

/** The single command `command` becomes with `variables`; 422 when a variable has no value or is a list. */
export function singleCommand(
  command: string,
  variables: Readonly<Record<string, unknown>>,
): { evaluated: string; parameters: Record<string, unknown> } {
  const expansion = expandCommand(command, variables);
  if (expansion.kind === 'skip') {
    const missing = variablesIn(command).filter((n) => variables[n] === undefined || variables[n] === null);
    throw new AppError(
      missing.length > 0 ? 'MOP_VARIABLE_MISSING' : 'MOP_VARIABLE_INVALID',
      `${expansion.message.replace(/^Skipped: /, '')} in "${command}"`,
    );
  }
  const first = expansion.expansions[0];
  if (expansion.expansions.length !== 1 || first === undefined) {
    throw new AppError(
      'MOP_VARIABLE_INVALID',
      `A list variable would make ${expansion.expansions.length} commands of "${command}"; RunCommand runs one (use RunCommandDevices or a template)`,
    );
  }
  return first;
}

/** `POST /mop/RunCommand`: one command on one device. */
export function runCommand(): Handler<'mop.RunCommand'> {
  return async (input, ctx) => {
    const { command, device } = input.body;
    const { evaluated, parameters } = singleCommand(command, input.body.variables ?? {});
    const response = await busCommandRunner(ctx)(device, evaluated);
    return { raw: command, evaluated, device, response, parameters };
  };
}
