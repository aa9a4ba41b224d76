import { AppError } from '@nap/contracts';
import type { HandlerContext, HandlerMap } from '@nap/bus';
import type { ConnectionOverrides } from '../device-access';
import type { SendCommandOptions, SendCommandResult, SendConfigSetOptions } from '../domain/ssh-session';
import type { GatewayContext } from './context';

const SEND_COMMAND_KEYS = [
  'expect_string',
  'read_timeout',
  'strip_prompt',
  'strip_command',
  'normalize',
  'cmd_verify',
  'auto_find_prompt',
  'use_textfsm',
  'textfsm_template',
  'use_ttp',
  'ttp_template',
  'use_genie',
  'raise_parsing_error',
  'delay_factor',
  'max_loops',
] as const;

const SEND_CONFIG_SET_KEYS = [
  'exit_config_mode',
  'read_timeout',
  'strip_prompt',
  'strip_command',
  'config_mode_command',
  'cmd_verify',
  'enter_config_mode',
  'error_pattern',
  'terminator',
  'bypass_commands',
  'commit',
  'delay_factor',
  'max_loops',
] as const;

function pick<T>(body: Record<string, unknown>, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (body[key] !== undefined) out[key] = body[key];
  return out as T;
}

/** netmiko `send_command` options found in a request body. */
export function sendCommandOptions(body: Record<string, unknown>): SendCommandOptions {
  return pick<SendCommandOptions>(body, SEND_COMMAND_KEYS);
}

/** netmiko `send_config_set` options found in a request body. */
export function sendConfigSetOptions(body: Record<string, unknown>): SendConfigSetOptions {
  return pick<SendConfigSetOptions>(body, SEND_CONFIG_SET_KEYS);
}

function outputEntry(r: SendCommandResult): { command: string; output: string; errorLines: string[]; failed: boolean; exitCode?: number } {
  return { command: r.command, output: r.output, errorLines: r.errorLines, failed: r.failed, ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }) };
}

/** Operation 11 and the two netmiko wrappers. */
export function sshHandlers(g: GatewayContext): HandlerMap {
  return {
    // Operation 11: one session, the commands in order, `{ command, output }` each.
    sshSendCommand: async (
      input: { body: { sshSendCommandParameters: { host: string; commands: string[]; connection_options: ConnectionOverrides } } },
      ctx: HandlerContext,
    ) => {
      const p = input.body.sshSendCommandParameters;
      const result = await g.access.withCli(
        { host: p.host, options: p.connection_options, portIsDefault: p.connection_options.port === 22 },
        async (session) => {
          const outputs: { command: string; output: string }[] = [];
          for (const command of p.commands) {
            const r = await session.sendCommand(command);
            outputs.push({ command, output: r.output });
          }
          return outputs;
        },
        { deadline: ctx.deadline },
      );
      return { status: 'success', code: 200, result };
    },

    sshSendCommandExec: async (input: { body: Record<string, unknown> & { host: string; command_string?: string; commands?: string[]; connection_options?: ConnectionOverrides } }, ctx: HandlerContext) => {
      const body = input.body;
      const commands = body.commands ?? (body.command_string === undefined ? [] : [body.command_string]);
      const options = sendCommandOptions(body);
      const result = await g.access.withCli(
        { host: body.host, options: body.connection_options ?? {} },
        async (session) => {
          const outputs: ReturnType<typeof outputEntry>[] = [];
          for (const command of commands) {
            const r = await session.sendCommand(command, options);
            outputs.push(outputEntry(r));
            if (r.failed) {
              throw new AppError('DEVICE_COMMAND_FAILED', `${session.label} reported an error for command "${command}": ${r.errorLines[0] ?? 'failed'}; later commands were not sent`, {
                details: { command, errorLines: r.errorLines, results: outputs },
              });
            }
          }
          return outputs;
        },
        { deadline: ctx.deadline },
      );
      return { status: 'success', code: 200, result };
    },

    sshSendConfigSet: async (input: { body: Record<string, unknown> & { host: string; config_commands: string | string[]; connection_options?: ConnectionOverrides } }, ctx: HandlerContext) => {
      const body = input.body;
      const options = sendConfigSetOptions(body);
      const result = await g.access.withCli(
        { host: body.host, options: body.connection_options ?? {} },
        (session) => session.sendConfigSet(body.config_commands, options),
        { deadline: ctx.deadline },
      );
      return { status: result.failed ? 'error' : 'success', code: result.failed ? 422 : 200, result };
    },
  } as HandlerMap;
}
