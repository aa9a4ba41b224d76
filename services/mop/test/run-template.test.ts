import type { CommandTemplate } from '@nap/contracts';
import { mapLimit } from '../src/clients/device-gateway';
import type { CommandRunner } from '../src/clients/device-gateway';
import { runTemplate } from '../src/context';
import { createInlineRegexEngine } from '../src/domain/regex-engine';

const engine = createInlineRegexEngine();

/** Device outputs by device and command, as a lab would answer; unknown commands fail like a device error. */
function outputs(table: Record<string, Record<string, string>>, sent: string[] = []): CommandRunner {
  return (device, command) => {
    sent.push(`${device}: ${command}`);
    const out = table[device]?.[command];
    return out === undefined ? Promise.reject(new Error(`% Invalid input "${command}"`)) : Promise.resolve(out);
  };
}

/** Runs a template as the handlers do, `runCommand` standing for the device gateway. */
function runTemplateOn(
  template: CommandTemplate,
  devices: readonly string[],
  variables: Record<string, unknown>,
  { runCommand, concurrency = 25 }: { runCommand: CommandRunner; concurrency?: number },
) {
  return runTemplate({ engine, ruleOptions: {}, deviceConcurrency: concurrency }, runCommand, template, devices, variables);
}

describe('running a command template', () => {
  const template: CommandTemplate = {
    name: 'VLAN checks',
    passRule: true,
    commands: [
      { command: 'show vlan <!vlan!>', passRule: true, rules: [{ rule: 'active', eval: 'contains', severity: 'error' }] },
      { command: 'show version', passRule: true, rules: [{ rule: 'Version <!version!>', eval: 'contains' }] },
      { command: 'dir <!image!>', passRule: true, rules: [{ rule: 'No such file', eval: '!contains' }] },
    ],
  };
  const table = {
    r1: { 'show vlan 10': '10 users active', 'show vlan 20': '20 voice active', 'show version': 'Version 15.9' },
    r2: { 'show vlan 10': '10 users suspended', 'show vlan 20': '20 voice active', 'show version': 'Version 15.9' },
  };

  it('answers one entry per command per device per element, in device then command order, with the exact shape', async () => {
    const out = await runTemplateOn(template, ['r1', 'r2'], { vlan: [10, 20], version: '15.9' }, { runCommand: outputs(table) });
    expect(Object.keys(out).sort()).toEqual(['all_pass_flag', 'commands_results', 'name', 'result']);
    expect(out.commands_results.map((r) => `${r.device} ${r.evaluated} ${r.result}`)).toEqual([
      'r1 show vlan 10 true',
      'r1 show vlan 20 true',
      'r1 show version true',
      'r1 dir <!image!> false',
      'r2 show vlan 10 false',
      'r2 show vlan 20 true',
      'r2 show version true',
      'r2 dir <!image!> false',
    ]);
    const first = out.commands_results[0];
    expect(first).toEqual({
      raw: 'show vlan <!vlan!>',
      evaluated: 'show vlan 10',
      device: 'r1',
      response: '10 users active',
      result: true,
      all_pass_flag: true,
      parameters: { vlan: 10 },
      rules: [{ rule: 'active', eval: 'contains', severity: 'error', result: true }],
    });
    expect(out.commands_results[3]).toMatchObject({ skipped: true, result: false, message: expect.stringContaining('"image"') });
    expect(out).toMatchObject({ name: 'VLAN checks', all_pass_flag: true, result: false });
  });

  it('passes with passRule false when one command of every device passes, and reports device errors per command', async () => {
    const sent: string[] = [];
    const out = await runTemplateOn(
      { ...template, passRule: false },
      ['r1', 'r2', 'r3'],
      { vlan: 10, version: '15.9', image: 'x.bin' },
      { runCommand: outputs(table, sent) },
    );
    const r3 = out.commands_results.filter((r) => r.device === 'r3');
    expect(r3.every((r) => r.result === false && /failed on device "r3"/.test(String(r.message)))).toBe(true);
    expect(out.result).toBe(false);
    const twoDevices = await runTemplateOn(
      { ...template, passRule: false },
      ['r1', 'r2'],
      { vlan: 10, version: '15.9', image: 'x.bin' },
      { runCommand: outputs(table) },
    );
    expect(twoDevices.result).toBe(true);
    expect(sent.filter((s) => s.startsWith('r3'))).toEqual(['r3: show vlan 10', 'r3: show version', 'r3: dir x.bin']);
  });

  it('runs devices in parallel within the limit and each device in command order', async () => {
    let running = 0;
    let most = 0;
    const order: string[] = [];
    const runner: CommandRunner = async (device, command) => {
      running += 1;
      most = Math.max(most, running);
      // yield, so that the other devices start before this one answers
      await new Promise((r) => setImmediate(r));
      running -= 1;
      order.push(`${device}:${command}`);
      return 'ok';
    };
    const devices = Array.from({ length: 12 }, (_, i) => `d${i}`);
    const t: CommandTemplate = { name: 't', commands: [{ command: 'a' }, { command: 'b' }] };
    await runTemplateOn(t, devices, {}, { runCommand: runner, concurrency: 4 });
    expect(most).toBe(4);
    for (const d of devices) expect(order.indexOf(`${d}:a`)).toBeLessThan(order.indexOf(`${d}:b`));
    expect(await mapLimit([3, 1, 2], 2, async (n) => n * 2)).toEqual([6, 2, 4]);
  });
});
