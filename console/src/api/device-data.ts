import type { CommandOutput } from '@nap/contracts';
// the platform's one secret policy is a pure module (no server code): what a secret is answered as
import { SECRET_MASK } from '@nap/contracts/dist/secrets';
import { ApiError } from './http';
import { isRecord } from './records';

/**
 * What the console reads out of inventory devices and command answers. How a device is reached and
 * its host key checked are the gateway's own rules, shared as a pure module of the contracts
 * (`@nap/contracts/dist/device-endpoints`), which the pages import.
 */

/** One variable of a device as the page lists it: its value as text, and whether the platform masked it (a secret). */
export interface VariableRow {
  name: string;
  text: string;
  masked: boolean;
}

/** A device's variables by name, each value as people read it: a string as it is, anything else as JSON. */
export function variableRows(variables: Readonly<Record<string, unknown>>): VariableRow[] {
  return Object.entries(variables)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => ({
      name,
      text: typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)),
      masked: value === SECRET_MASK,
    }));
}

/** The commands a text box holds: one a line, blank lines left out, each without the spaces around it. */
export function commandsOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The command outputs of an answer's `result` (or an error's `details.results`); anything else is none. */
export function outputsOf(result: unknown): CommandOutput[] {
  if (!Array.isArray(result)) return [];
  return result.filter(isRecord).flatMap((item) => {
    if (typeof item.command !== 'string') return [];
    const errorLines = Array.isArray(item.errorLines) ? item.errorLines.filter((line): line is string => typeof line === 'string') : [];
    return [
      {
        command: item.command,
        output: typeof item.output === 'string' ? item.output : '',
        errorLines,
        failed: item.failed === true,
      },
    ];
  });
}

/** The outputs a failed run had when it stopped: `DEVICE_COMMAND_FAILED` holds them in `details.results`; other errors have none. */
export function outputsOfError(error: unknown): CommandOutput[] {
  if (!(error instanceof ApiError) || !isRecord(error.details)) return [];
  return outputsOf(error.details.results);
}

/** A command of a run as the page shows it: its output, or undefined when it was never sent (an earlier one stopped the run). */
export interface CommandRun {
  command: string;
  output: string | undefined;
  failed: boolean;
}

/** Each command asked for, in order, beside what the device answered to it. */
export function commandRunsOf(commands: readonly string[], outputs: readonly CommandOutput[]): CommandRun[] {
  return commands.map((command, i) => {
    const answered = outputs[i];
    return answered === undefined
      ? { command, output: undefined, failed: false }
      : { command, output: answered.output, failed: answered.failed === true };
  });
}

/** The outputs of a run as one text to paste elsewhere: each headed by its command (`### show version`), as docs/devices.md prints them. */
export function transcriptOf(runs: readonly CommandRun[]): string {
  return runs
    .filter((run) => run.output !== undefined)
    .map((run) => `### ${run.command}\n${run.output ?? ''}`)
    .join('\n\n');
}
