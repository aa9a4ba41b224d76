import { AppError, variablesIn } from '@nap/contracts';
import type { ResponseOf } from '@nap/contracts';
import type { DeviceAnswers } from './template-run';
import { expandCommand } from './variables';
import type { Expansion } from './variables';
import { ownValue } from '@nap/util';

/** A skip message of {@link expandCommand} as the rest of an error message. */
function reason(message: string): string {
  return message.replace(/^Skipped: /, '');
}

/** The single command `command` becomes with `variables`; 422 when a variable has no value or is a list. */
export function singleCommand(command: string, variables: Readonly<Record<string, unknown>>): Expansion {
  const expansion = expandCommand(command, variables);
  if (expansion.kind === 'skip') {
    const missing = variablesIn(command).filter((n) => {
      const value = ownValue(variables, n);
      return value === undefined || value === null;
    });
    throw new AppError(
      missing.length > 0 ? 'MOP_VARIABLE_MISSING' : 'MOP_VARIABLE_INVALID',
      `${reason(expansion.message)} in "${command}"`,
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

/** The commands `command` becomes with `variables`, one per element of a list variable; 422 MOP_VARIABLE_MISSING when one cannot be made. */
export function commandExpansions(command: string, variables: Readonly<Record<string, unknown>>): Expansion[] {
  const expansion = expandCommand(command, variables);
  if (expansion.kind === 'skip') throw new AppError('MOP_VARIABLE_MISSING', `${reason(expansion.message)} in "${command}"`);
  return expansion.expansions;
}

/** One entry of the answer of `POST /mop/RunCommandDevices`: one command on one device. */
export type CommandOutput = ResponseOf<'mop.RunCommandDevices'>[number];

/** The entries of `POST /mop/RunCommandDevices`: per device, per expansion, the output or the error in its place. */
export function commandOutputs(raw: string, expansions: readonly Expansion[], answered: readonly DeviceAnswers[]): CommandOutput[] {
  return answered.flatMap(({ device, answers }) =>
    expansions.map(({ evaluated, parameters }, i): CommandOutput => {
      const answer = answers[i];
      if (answer?.ok === true) return { raw, evaluated, device, response: answer.response, parameters };
      return { raw, evaluated, device, response: '', parameters, error: answer?.error ?? 'no answer was received' };
    }),
  );
}
