import type { Caller, ConfigChangeResult } from '@nap/contracts';
import type { SendConfigSetOptions } from './clients/netmiko-options';
import type { SshSession } from './clients/ssh-session';
import type { GatewayDevicesContext } from './context';
import type { SessionRunOptions } from './device-access';

/** The command that captures a configuration that can be sent back (Junos: as `set` statements). */
function backupCommand(session: SshSession): string {
  return session.profile.deviceType === 'juniper_junos' ? 'show configuration | display set' : session.profile.commands.getConfig;
}

/** The device's running configuration; `forBackup` reads it in the form that can be sent back. */
export async function readConfig(session: SshSession, forBackup: boolean): Promise<string> {
  const result = await session.sendCommand(forBackup ? backupCommand(session) : session.profile.commands.getConfig, { read_timeout: 60 });
  return result.output;
}

/**
 * Backs up the running configuration of inventory device `name`, then applies `lines`, in one
 * session. The gateway's configuration operations apply: on Junos that means commit.
 */
export async function applyConfigChange(
  svc: GatewayDevicesContext,
  change: { name: string; lines: string[]; options: SendConfigSetOptions; reason: string; caller: Caller },
  run: SessionRunOptions,
): Promise<ConfigChangeResult> {
  const { name } = change;
  await svc.inventory.get(name);
  return svc.access.withInventoryCli(
    name,
    async (session) => {
      const before = await readConfig(session, true);
      const backup = await svc.inventory.addBackup(name, before, change.reason, change.caller.username);
      const junos = session.profile.deviceType === 'juniper_junos';
      const result = await session.sendConfigSet(change.lines, { ...change.options, ...(junos ? { commit: true } : {}) });
      return {
        status: result.failed ? 'error' : 'success',
        name,
        output: result.output,
        errors: result.errors,
        failed: result.failed,
        backupId: backup._id,
      };
    },
    run,
  );
}
