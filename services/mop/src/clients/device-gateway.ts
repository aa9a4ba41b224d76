import type { HandlerContext } from '@nap/bus';
import type { BodyOf, ResponseOf } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import type { DeviceAnswers } from '../domain/template-run';

/** Sends one command to one inventory device and answers its raw output; throws when the device fails. */
export type CommandRunner = (device: string, command: string) => Promise<string>;

/**
 * Runs commands through the device gateway over the bus, as the caller; answers the raw output. A
 * device's own error line (`% Invalid input`) is output like any other: users write rules that look
 * for it.
 */
export function commandRunner(ctx: HandlerContext): CommandRunner {
  return async (device, command) => withErrorLines(await ctx.call('gateway-devices.runCommand', { body: { device, command } }));
}

/**
 * The output of a command as a terminal shows it: a CLI device echoes its error lines in the output,
 * but a command run on an exec channel (a `linux` device) writes them apart (stderr): they follow its
 * output, so that the run shows why it failed (`bash: show: command not found`) and rules can look for them.
 */
export function withErrorLines(answer: { response: string; errorLines?: readonly string[] }): string {
  const apart = (answer.errorLines ?? []).filter((line) => line !== '' && !answer.response.includes(line));
  if (apart.length === 0) return answer.response;
  const joined = apart.join('\n');
  return answer.response === '' ? joined : `${answer.response.replace(/\n?$/, '\n')}${joined}`;
}

/** An inventory device as `gateway-devices.getInventoryDevices` lists it. */
export type InventoryDevice = ResponseOf<'gateway-devices.getInventoryDevices'>['items'][number];

/** Devices asked for per page of `gateway-devices.getInventoryDevices`. */
const INVENTORY_PAGE = 500;

/** A filter of the inventory lists: member name to value. */
export type InventoryFilter = NonNullable<BodyOf<'gateway-devices.getInventoryDevices'>['filter']>;

/** Every inventory device (paged through `gateway-devices.getInventoryDevices`), optionally filtered by variables. */
export async function listInventory(ctx: HandlerContext, filter?: InventoryFilter): Promise<InventoryDevice[]> {
  const out: InventoryDevice[] = [];
  for (let skip = 0; ;) {
    const page = await ctx.call('gateway-devices.getInventoryDevices', {
      body: { skip, limit: INVENTORY_PAGE, ...(filter !== undefined ? { filter } : {}) },
    });
    out.push(...page.items);
    skip += page.items.length;
    if (page.items.length === 0 || skip >= page.total) return out;
  }
}

/** Runs `fn` over `items` with at most `limit` at once; results in the order of `items`. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
  return results;
}

/**
 * Sends `commands` to every device of `devices`: the devices in parallel (at most `concurrency` at
 * once), the commands of one device in order, each sent even when the one before failed. Answers per
 * device, in the order of `devices`, the output of each command or why it failed.
 */
export async function sendCommands(
  run: CommandRunner,
  devices: readonly string[],
  commands: readonly string[],
  concurrency: number,
): Promise<DeviceAnswers[]> {
  return mapLimit(devices, concurrency, async (device) => {
    const answers: DeviceAnswers['answers'] = [];
    for (const command of commands) {
      try {
        answers.push({ ok: true, response: await run(device, command) });
      } catch (err) {
        answers.push({ ok: false, error: errorMessage(err) });
      }
    }
    return { device, answers };
  });
}
