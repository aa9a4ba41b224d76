/**
 * netmiko's parameters of `send_command` and `send_config_set`: names, units (seconds) and netmiko 4
 * defaults, and the pickers that take them out of a request body.
 */

/**
 * netmiko `send_command` parameters, by netmiko's names and in its units (seconds), so the HTTP and
 * bus contracts pass them through unchanged. Parsing options (`use_textfsm`, `use_ttp`, `use_genie`)
 * are accepted and ignored: output is always returned as text.
 */
export interface SendCommandOptions {
  /** Regular expression that ends the read instead of the prompt. */
  expect_string?: string;
  /** Seconds to wait for the prompt (or `expect_string`); default 10. */
  read_timeout?: number;
  /** Remove the trailing prompt; default true. */
  strip_prompt?: boolean;
  /** Remove the echo of the command; default true. */
  strip_command?: boolean;
  /** Strip trailing whitespace and send a newline; default true. */
  normalize?: boolean;
  /** Wait for the command echo before reading the output; default true. */
  cmd_verify?: boolean;
  /** Accepted for compatibility; the prompt is always the one found at login or after config changes. */
  auto_find_prompt?: boolean;
  use_textfsm?: boolean;
  textfsm_template?: string;
  use_ttp?: boolean;
  ttp_template?: string;
  use_genie?: boolean;
  raise_parsing_error?: boolean;
  /** Deprecated in netmiko 4; ignored. */
  delay_factor?: number;
  /** Deprecated in netmiko 4; ignored. */
  max_loops?: number;
}

/** netmiko 4 defaults of `send_command`. */
export const SEND_COMMAND_DEFAULTS = {
  read_timeout: 10,
  strip_prompt: true,
  strip_command: true,
  normalize: true,
  cmd_verify: true,
  auto_find_prompt: true,
  use_textfsm: false,
  use_ttp: false,
  use_genie: false,
  raise_parsing_error: false,
} as const;

/** The `send_command` options a request body gives, and nothing else of it. */
export function pickSendCommandOptions(body: SendCommandOptions): SendCommandOptions {
  const out: SendCommandOptions = {};
  for (const key of SEND_COMMAND_KEYS) copyDefined(out, body, key);
  return out;
}

const SEND_COMMAND_KEYS: readonly (keyof SendCommandOptions)[] = [
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
];

function copyDefined<T, K extends keyof T>(out: T, from: T, key: K): void {
  if (from[key] !== undefined) out[key] = from[key];
}

/** netmiko `send_config_set` parameters, by netmiko's names and in its units (seconds). */
export interface SendConfigSetOptions {
  /** Leave configuration mode at the end; default true. */
  exit_config_mode?: boolean;
  /** Seconds to wait for each command's prompt; default 15. */
  read_timeout?: number;
  /** Default false. */
  strip_prompt?: boolean;
  /** Default false. */
  strip_command?: boolean;
  /** Overrides the device type's configuration command (`configure terminal`, `configure`). */
  config_mode_command?: string;
  /** Wait for each command's echo; default true (forced off when `bypass_commands` matches). */
  cmd_verify?: boolean;
  /** Enter configuration mode first; default true. */
  enter_config_mode?: boolean;
  /**
   * Regular expression (multiline) that, when it matches a command's output, stops the set with
   * `DEVICE_COMMAND_FAILED`; default '' (errors are reported in the result, not thrown).
   */
  error_pattern?: string;
  /** Alternate end-of-output terminator; default `#` (`#` or `>` line end for the device type). */
  terminator?: string;
  /** Commands for which `cmd_verify` is turned off; default `^banner .*$`. */
  bypass_commands?: string;
  /** Junos: commit the candidate before leaving configuration mode (not a netmiko parameter); default false. */
  commit?: boolean;
  /** Deprecated in netmiko 4; ignored. */
  delay_factor?: number;
  /** Deprecated in netmiko 4; ignored. */
  max_loops?: number;
}

/** netmiko 4 defaults of `send_config_set`. */
export const SEND_CONFIG_SET_DEFAULTS = {
  exit_config_mode: true,
  read_timeout: 15,
  strip_prompt: false,
  strip_command: false,
  cmd_verify: true,
  enter_config_mode: true,
  error_pattern: '',
  terminator: '#',
  bypass_commands: '^banner .*$',
  commit: false,
} as const;

/** The `send_config_set` options a request body gives, and nothing else of it. */
export function pickSendConfigSetOptions(body: SendConfigSetOptions): SendConfigSetOptions {
  const out: SendConfigSetOptions = {};
  for (const key of SEND_CONFIG_SET_KEYS) copyDefined(out, body, key);
  return out;
}

const SEND_CONFIG_SET_KEYS: readonly (keyof SendConfigSetOptions)[] = [
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
];
