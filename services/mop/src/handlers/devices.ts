import { AppError } from '@nap/contracts';
import type { HandlerContext } from '@nap/bus';
import type { CommandRunner } from '../domain/run';

/** What `gateway-devices.runCommand` answers: the output in `response` (or `stdout`). */
interface RunCommandAnswer {
  response?: unknown;
  stdout?: unknown;
  stderr?: unknown;
  status?: unknown;
  result?: unknown;
}

/**
 * The raw output of a runCommand answer. A device's own error line (`% Invalid input`) is output
 * like any other: users write rules that look for it. Only an answer without output throws.
 */
export function outputOf(answer: unknown, device: string, command: string): string {
  if (typeof answer === 'string') return answer;
  const a = (answer ?? {}) as RunCommandAnswer;
  for (const value of [a.response, a.stdout, a.result]) if (typeof value === 'string') return value;
  const detail = typeof a.stderr === 'string' && a.stderr !== '' ? `: ${a.stderr}` : '';
  throw new AppError('UPSTREAM_FAILED', `gateway-devices.runCommand answered no output for "${command}" on device "${device}"${detail}`);
}

/** Runs commands through the device gateway over the bus, as the caller. */
export function busCommandRunner(ctx: HandlerContext): CommandRunner {
  return async (device, command) => {
    const answer = await ctx.call('gateway-devices.runCommand', { body: { device, command } });
    return outputOf(answer, device, command);
  };
}

/** An inventory device as the gateway lists it. */
export interface InventoryDevice {
  name: string;
  [member: string]: unknown;
}

/** Every inventory device (paged through `gateway-devices.getInventoryDevices`), optionally filtered by variables. */
export async function listInventory(ctx: HandlerContext, filter?: Record<string, unknown>): Promise<InventoryDevice[]> {
  const out: InventoryDevice[] = [];
  const limit = 500;
  for (let skip = 0; ; ) {
    const page = await ctx.call<{ items?: InventoryDevice[]; results?: InventoryDevice[]; total?: number } | InventoryDevice[]>('gateway-devices.getInventoryDevices', {
      body: { skip, limit, ...(filter !== undefined ? { filter } : {}) },
    });
    const results = Array.isArray(page) ? page : (page.items ?? page.results ?? []);
    out.push(...results.filter((d) => typeof d?.name === 'string'));
    const total = Array.isArray(page) ? undefined : page.total;
    skip += results.length;
    if (results.length === 0 || (total !== undefined ? skip >= total : results.length < limit)) return out;
  }
}
