import type { CommandOutput } from '@nap/contracts';
// the platform's one secret policy is a pure module (no server code): what a secret is answered as
import { SECRET_MASK } from '@nap/contracts/dist/secrets';
import { ApiError } from './http';
import { isRecord } from './records';

/**
 * What the console reads out of inventory devices and command answers. The device gateway's own
 * rules (its SSH endpoint, its host key checking) are server code the bundle must not carry, so
 * the few the pages need are written here as the gateway applies them
 * (`services/gateway-devices/src/domain/`: `connection-settings.ts`, `device-variables.ts`,
 * `known-hosts.ts`): `console/test/device-data.test.ts` holds them to the documented rules, and
 * `console/test/console-devices.test.ts` to a real gateway (the key a session trusted is found
 * under the endpoint the page works out).
 */

/** The SSH port a device without `gw_port` is reached on. */
const DEFAULT_SSH_PORT = 22;

/** How a device's host key is checked (its `host_key_checking`), as docs/security.md, "Device host keys", names the modes. */
export const HOST_KEY_CHECKING = { TOFU: 'tofu', STRICT: 'strict', OFF: 'off' } as const;
export type HostKeyChecking = (typeof HOST_KEY_CHECKING)[keyof typeof HOST_KEY_CHECKING];

/**
 * The mode a `host_key_checking` value names, read as the gateway reads it: absent, `null`, `true`,
 * `"tofu"` → trust on first use; `"strict"`; `false`, `"off"` → off. Undefined for a value the
 * gateway does not know (it refuses such a value when a device is written).
 */
export function hostKeyCheckingOf(value: unknown): HostKeyChecking | undefined {
  if (value === undefined || value === null || value === true) return HOST_KEY_CHECKING.TOFU;
  if (value === false) return HOST_KEY_CHECKING.OFF;
  const text = String(value).trim().toLowerCase();
  if (text === 'strict') return HOST_KEY_CHECKING.STRICT;
  if (['off', 'false', 'no', '0'].includes(text)) return HOST_KEY_CHECKING.OFF;
  if (['tofu', 'true', 'yes', '1', 'accept-new'].includes(text)) return HOST_KEY_CHECKING.TOFU;
  return undefined;
}

/** The parts of an inventory device the endpoint is read from. */
export interface DeviceAddressing {
  name: string;
  variables: Readonly<Record<string, unknown>>;
}

/**
 * The SSH endpoint the gateway reaches a device on, written as it keys the host keys it trusts:
 * `gw_host` (the device's name when absent) and `gw_port` (22 when absent), `host:port`, an IPv6
 * address in brackets (`[2001:db8::1]:22`).
 */
export function sshEndpointOf(device: DeviceAddressing): string {
  const host = typeof device.variables.gw_host === 'string' && device.variables.gw_host !== '' ? device.variables.gw_host : device.name;
  const port =
    typeof device.variables.gw_port === 'number' && Number.isInteger(device.variables.gw_port)
      ? device.variables.gw_port
      : DEFAULT_SSH_PORT;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The route of an endpoint's trusted key (`/gw/knownHosts/:hostPort`): the colon before the port kept, an IPv6 address encoded. */
export function knownHostRoute(hostPort: string): string {
  const colon = hostPort.lastIndexOf(':');
  return `/gw/knownHosts/${encodeURIComponent(hostPort.slice(0, colon))}${hostPort.slice(colon)}`;
}

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
