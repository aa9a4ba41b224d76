import { AppError, isAppError } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { HandlerContext, HandlerMap } from '@nap/bus';
import { configLines, findMacAddresses, parseCpu, parseMemory } from '../domain/device-reports';
import type { OperationalQuery } from '../domain/device-types';
import type { SendConfigSetResult, SshSession } from '../domain/ssh-session';
import type { GatewayContext } from './context';
import { sendCommandOptions, sendConfigSetOptions } from './ssh';

const OPERATIONAL_QUERIES: readonly OperationalQuery[] = ['interfaces', 'routes', 'arp', 'neighbors', 'clock', 'version'];

/** The command that captures a configuration that can be sent back (Junos: as `set` statements). */
function backupCommand(session: SshSession): string {
  return session.profile.deviceType === 'juniper_junos' ? 'show configuration | display set' : session.profile.commands.getConfig;
}

async function readConfig(session: SshSession, forBackup: boolean): Promise<string> {
  const result = await session.sendCommand(forBackup ? backupCommand(session) : session.profile.commands.getConfig, { read_timeout: 60 });
  return result.output;
}

function changeResult(name: string, result: SendConfigSetResult, backupId: string) {
  return { status: result.failed ? 'error' : 'success', name, output: result.output, errors: result.errors, failed: result.failed, backupId };
}

/** Device operations over SSH (bus-only): commands, configuration, backups, health, info, status. */
export function deviceOperationHandlers(g: GatewayContext): HandlerMap {
  const onDevice = <T>(name: string, ctx: HandlerContext, fn: (session: SshSession) => Promise<T>): Promise<T> =>
    g.access.withCli({ host: name, inventoryOnly: true }, (session) => fn(session), { deadline: ctx.deadline });

  // Backs up the running configuration, then applies the lines, in one session.
  const change = async (name: string, lines: string[], options: Parameters<SshSession['sendConfigSet']>[1], reason: string, caller: Caller, ctx: HandlerContext) => {
    await g.inventory.get(name);
    return onDevice(name, ctx, async (session) => {
      const before = await readConfig(session, true);
      const backup = await g.inventory.addBackup(name, before, reason, caller.username);
      const junos = session.profile.deviceType === 'juniper_junos';
      // The gateway's configuration operations apply: on Junos that means commit.
      const result = await session.sendConfigSet(lines, { ...options, ...(junos ? { commit: true } : {}) });
      return changeResult(name, result, backup._id);
    });
  };

  return {
    runCommand: async (input: { body: Record<string, unknown> & { device: string; command: string } }, ctx: HandlerContext) => {
      const { device, command } = input.body;
      const r = await onDevice(device, ctx, (session) => session.sendCommand(command, sendCommandOptions(input.body)));
      return {
        status: r.failed ? 'error' : 'success',
        device,
        command,
        response: r.output,
        errorLines: r.errorLines,
        failed: r.failed,
        ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }),
      };
    },

    getConfig: async (input: { body: { name: string; backup?: boolean }; caller: Caller }, ctx: HandlerContext) => {
      const { name, backup = false } = input.body;
      const config = await onDevice(name, ctx, (session) => readConfig(session, false));
      if (!backup) return { name, config };
      const saved = await g.inventory.addBackup(name, config, 'getConfig', input.caller.username);
      return { name, config, backupId: saved._id };
    },

    setConfig: async (input: { body: Record<string, unknown> & { name: string; config: string | string[] }; caller: Caller }, ctx: HandlerContext) => {
      const lines = typeof input.body.config === 'string' ? input.body.config.split(/\r?\n/).filter((l) => l.trim() !== '') : input.body.config;
      return change(input.body.name, lines, sendConfigSetOptions(input.body), 'setConfig', input.caller, ctx);
    },

    loadConfig: async (input: { body: { name: string; config: string; commit?: boolean }; caller: Caller }, ctx: HandlerContext) =>
      change(input.body.name, configLines(input.body.config), { commit: input.body.commit ?? true }, 'loadConfig', input.caller, ctx),

    restoreConfig: async (input: { body: { name: string; backupId?: string; config?: string }; caller: Caller }, ctx: HandlerContext) => {
      const { name, backupId, config } = input.body;
      const text = config !== undefined && backupId === undefined ? config : (await g.inventory.getBackup(name, backupId)).config;
      return change(name, configLines(text), { commit: true }, `restoreConfig${backupId === undefined ? '' : ` ${backupId}`}`, input.caller, ctx);
    },

    getConfigBackups: async (input: { body: { name: string; skip?: number; limit?: number; withConfig?: boolean } }) => {
      await g.inventory.get(input.body.name);
      const page = await g.inventory.listBackups(input.body.name, input.body.skip ?? 0, input.body.limit ?? 0);
      return {
        results: page.results.map((b) => ({
          id: b._id,
          device: b.device,
          created: b.created,
          reason: b.reason,
          createdBy: b.createdBy,
          ...(input.body.withConfig === true ? { config: b.config } : {}),
        })),
        total: page.total,
      };
    },

    getDeviceHealth: async (input: { body: { name: string } }, ctx: HandlerContext) => {
      const { name } = input.body;
      const outputs = await onDevice(name, ctx, async (session) => {
        const list = [];
        for (const command of session.profile.commands.getDeviceHealth) list.push(await session.sendCommand(command));
        return list;
      });
      const text = outputs.map((o) => o.output).join('\n');
      return { name, cpu: parseCpu(text), memory: parseMemory(text), outputs: outputs.map((o) => ({ command: o.command, output: o.output, errorLines: o.errorLines, failed: o.failed })) };
    },

    getDeviceInfo: async (input: { body: { name: string } }, ctx: HandlerContext) => {
      const { name } = input.body;
      const { type, outputs, macText } = await onDevice(name, ctx, async (session) => {
        const list = [];
        for (const command of session.profile.commands.getDeviceInfo) list.push(await session.sendCommand(command));
        const macs = await session.sendCommand(session.profile.commands.macAddresses);
        return { type: session.profile.deviceType, outputs: list, macText: macs.output };
      });
      const device = await g.inventory.get(name);
      const declared = typeof device.variables.gw_network_os === 'string' ? device.variables.gw_network_os : type;
      return {
        name,
        type: declared,
        macAddresses: findMacAddresses(`${outputs.map((o) => o.output).join('\n')}\n${macText}`),
        outputs: outputs.map((o) => ({ command: o.command, output: o.output, errorLines: o.errorLines, failed: o.failed })),
      };
    },

    connectDevice: async (input: { body: { name: string } }, ctx: HandlerContext) => {
      const { name } = input.body;
      return onDevice(name, ctx, async (session) => {
        const alive = await session.isAlive();
        return { name, connected: alive, prompt: session.prompt() ?? '', hostKeyFingerprint: session.hostKeyFingerprint() ?? '' };
      });
    },

    isAlive: async (input: { body: { name: string } }, ctx: HandlerContext) => {
      const { name } = input.body;
      await g.inventory.get(name);
      try {
        const alive = await onDevice(name, ctx, (session) => session.isAlive());
        return { name, alive };
      } catch (err) {
        if (!isAppError(err) || !err.code.startsWith('DEVICE_')) throw err;
        return { name, alive: false, code: err.code, message: err.message };
      }
    },

    getOperationalData: async (input: { body: { name: string; filter?: string | string[] } }, ctx: HandlerContext) => {
      const { name, filter } = input.body;
      const wanted = filter === undefined ? OPERATIONAL_QUERIES : typeof filter === 'string' ? [filter] : filter;
      const data = await onDevice(name, ctx, async (session) => {
        const out: Record<string, string> = {};
        for (const query of wanted) {
          const known = (OPERATIONAL_QUERIES as readonly string[]).includes(query);
          // A name outside the table is taken as a read-only command of the device ("show ip ospf neighbor").
          if (!known && !/^(?:show|display) \S/.test(query)) {
            throw new AppError('VALIDATION_FAILED', `Operational data "${query}" is neither ${OPERATIONAL_QUERIES.join(', ')} nor a show command`);
          }
          const command = known ? session.profile.commands.operational[query as OperationalQuery] : query;
          out[query] = (await session.sendCommand(command)).output;
        }
        return out;
      });
      return { name, data };
    },
  } as HandlerMap;
}
