/**
 * What the gateway knows about each netmiko device type: how its prompts look, how paging is turned
 * off, how privileged and configuration modes are entered and left, which lines are the device's
 * own error messages, and which commands answer the gateway operations (getConfig, getDeviceInfo,
 * getDeviceHealth, isAlive, getOperationalData, save).
 *
 * The facts follow netmiko's drivers (CiscoIosSSH, CiscoNxosSSH, AristaSSH, JuniperSSH, LinuxSSH) so a
 * device that works with netmiko works here with the same `gw_network_os` value.
 */

/** The device types with a profile of their own; anything else falls back to `generic`. */
export const DEVICE_TYPES = ['cisco_ios', 'cisco_xe', 'cisco_nxos', 'arista_eos', 'juniper_junos', 'linux', 'generic'] as const;

/** A netmiko device type the gateway has a profile for. */
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** How commands reach the device: an interactive shell with prompts, or one SSH exec channel per command. */
export const DEVICE_TRANSPORTS = { SHELL: 'shell', EXEC: 'exec' } as const;
/** See {@link DEVICE_TRANSPORTS}. */
export type DeviceTransport = (typeof DEVICE_TRANSPORTS)[keyof typeof DEVICE_TRANSPORTS];

/** Named operational queries of `getOperationalData`. */
export type OperationalQuery = 'interfaces' | 'routes' | 'arp' | 'neighbors' | 'clock' | 'version';

/** Commands that answer the gateway operations on one device type. */
export interface DeviceTypeCommands {
  /** Running configuration (`getConfig`, config backups). */
  readonly getConfig: string;
  /** Startup (saved) configuration, where the device has one. */
  readonly getStartupConfig?: string;
  /** Identity, model, software version, inventory (`getDeviceInfo`). */
  readonly getDeviceInfo: readonly string[];
  /** CPU, memory, uptime (`getDeviceHealth`). */
  readonly getDeviceHealth: readonly string[];
  /** A cheap command that proves the session works (`isAlive`); empty means "a prompt is enough". */
  readonly isAlive: string;
  /** Named operational queries (`getOperationalData`). */
  readonly operational: Readonly<Record<OperationalQuery, string>>;
  /** Saves the running configuration (IOS `write memory`); absent where commit persists (Junos). */
  readonly saveConfig?: string;
  /** Output that lists the interfaces' MAC addresses (`getDeviceInfo`). */
  readonly macAddresses: string;
}

/** Everything the session needs to drive one device type. */
export interface DeviceTypeProfile {
  readonly deviceType: DeviceType;
  readonly transport: DeviceTransport;
  /**
   * Matches one whole prompt line (the text after the last newline, `\r` removed). Named groups:
   * `base` (the part that identifies the device, e.g. `router1` or `user@router1`), `mode` (the
   * parenthesised mode such as `config-if`, when shown) and `term` (the terminator `>`, `#`, `%`, `$`).
   */
  readonly promptPattern: RegExp;
  /** Terminators that mean privileged mode (`#`); for Junos `#` means configuration mode instead. */
  readonly privilegedTerminators: readonly string[];
  /** True when the prompt (mode group or terminator) says configuration mode. */
  readonly isConfigPrompt: (prompt: PromptMatch) => boolean;
  /**
   * Devices that can log a user in at an OS shell rather than the CLI (Junos `root` lands at
   * `root@r1:RE:0% `): when the first prompt ends with one of `shellTerminators`, `command` starts the CLI.
   */
  readonly cliFromShell?: { readonly command: string; readonly shellTerminators: readonly string[] };
  /** Sent at session start to turn paging off and widen the terminal; their errors are ignored. */
  readonly sessionPreparation: readonly string[];
  /** A pager waiting for a key (`--More--`, `---(more 40%)---`) at the end of the output. */
  readonly pagerPattern?: RegExp;
  /** Privileged mode: `enable` and the password prompt it may show. */
  readonly enable?: { readonly command: string; readonly passwordPrompt: RegExp; readonly exitCommand: string };
  /** Enters configuration mode. */
  readonly configCommand?: string;
  /** Leaves configuration mode back to the exec prompt. */
  readonly configExitCommand?: string;
  /** Asked when leaving configuration mode with uncommitted changes (Junos); answered `yes`. */
  readonly configExitConfirm?: RegExp;
  /** Commits the candidate configuration (Junos). */
  readonly commitCommand?: string;
  /** Output of a successful commit. */
  readonly commitSuccess?: RegExp;
  /**
   * Alternate end-of-command terminator in configuration mode (netmiko's `terminator`), used when a
   * command changes the hostname and the base prompt no longer matches.
   */
  readonly configTerminator: RegExp;
  /** Lines by which the device reports an error for a command. */
  readonly errorPatterns: readonly RegExp[];
  /** Context lines printed before a prompt that are not output (Junos `[edit]`, `{master:0}`). */
  readonly contextLinePattern?: RegExp;
  readonly commands: DeviceTypeCommands;
}

/** A parsed prompt line. */
export interface PromptMatch {
  /** The whole prompt line, trailing spaces kept. */
  readonly line: string;
  /** Identifies the device: `router1`, `user@router1`. */
  readonly base: string;
  /** Parenthesised mode(s) without parentheses, joined by `)(`: `config`, `config-if`, `s1)(config`. */
  readonly mode: string;
  /** `>`, `#`, `%` or `$`. */
  readonly term: string;
}

// Cisco-like prompts: hostname, any number of parenthesised modes (Arista config sessions show
// `(s1)(config)`), then `>` or `#`. Hostnames are kept to word characters, dots and dashes so banner
// art such as `#####` or `-->` is not taken for a prompt.
const CISCO_PROMPT = /^(?<base>[A-Za-z0-9_][\w.\-/:]*?)(?<mode>(?:\([^()\r\n]*\))*)(?<term>[>#])\s*$/;
// Junos: `user@host> ` operational, `user@host# ` configuration, `user@host:RE:0% ` / `root@host% ` shell.
const JUNOS_PROMPT = /^(?<base>[\w.-]+@[\w.-]+)(?<mode>(?::[\w.:~/-]*)?)\s?(?<term>[>#%])\s?$/;
// Linux shells: `user@host:~$ `, `[user@host dir]# `, `host# `.
const LINUX_PROMPT = /^(?<base>\[?[\w.-]+(?:@[\w.-]+)?)(?<mode>(?:[: ][^\s$#]*\]?)?)\s?(?<term>[$#])\s?$/;
const GENERIC_PROMPT = /^(?<base>[\w.\-@]+)(?<mode>(?:\([^()\r\n]*\))*)(?<term>[>#$%])\s?$/;

const CISCO_ERRORS: readonly RegExp[] = [
  /^\s*% ?Invalid (?:input|command|parameter)/i,
  /^\s*% ?Incomplete command/i,
  /^\s*% ?Ambiguous command/i,
  /^\s*% ?Unknown command/i,
  /^\s*% ?Unrecognized command/i,
  /^\s*% ?Unavailable command/i,
  /^\s*% ?Bad (?:secrets|passwords?|mask|IP address)/i,
  /^\s*% ?Error/i,
  /^\s*% ?Access denied/i,
];
const JUNOS_ERRORS: readonly RegExp[] = [
  /^\s*syntax error/i,
  /^\s*unknown command/i,
  /^\s*error:/i,
  /^\s*'[^']*' is ambiguous/i,
  /^\s*missing argument/i,
  /^\s*invalid (?:value|interface|ip address)/i,
];
const LINUX_ERRORS: readonly RegExp[] = [/: command not found$/, /: No such file or directory$/, /: Permission denied$/];

function ciscoModeIsConfig(prompt: PromptMatch): boolean {
  return prompt.mode.includes('config');
}

const IOS_COMMANDS: DeviceTypeCommands = {
  getConfig: 'show running-config',
  getStartupConfig: 'show startup-config',
  getDeviceInfo: ['show version', 'show inventory'],
  getDeviceHealth: ['show processes cpu', 'show memory statistics'],
  isAlive: '',
  operational: {
    interfaces: 'show ip interface brief',
    routes: 'show ip route',
    arp: 'show ip arp',
    neighbors: 'show cdp neighbors',
    clock: 'show clock',
    version: 'show version',
  },
  saveConfig: 'write memory',
  macAddresses: 'show interfaces',
};

function ciscoLike(deviceType: DeviceType, overrides: Partial<DeviceTypeProfile>): DeviceTypeProfile {
  return {
    deviceType,
    transport: DEVICE_TRANSPORTS.SHELL,
    promptPattern: CISCO_PROMPT,
    privilegedTerminators: ['#'],
    isConfigPrompt: ciscoModeIsConfig,
    sessionPreparation: ['terminal length 0', 'terminal width 511'],
    pagerPattern: /\s*-+ ?More ?-+\s*$/,
    enable: { command: 'enable', passwordPrompt: /[Pp]assword:\s*$/, exitCommand: 'disable' },
    configCommand: 'configure terminal',
    configExitCommand: 'end',
    configTerminator: /#\s*$/,
    errorPatterns: CISCO_ERRORS,
    commands: IOS_COMMANDS,
    ...overrides,
  };
}

const PROFILES: Readonly<Record<DeviceType, DeviceTypeProfile>> = {
  cisco_ios: ciscoLike('cisco_ios', {}),
  cisco_xe: ciscoLike('cisco_xe', {
    commands: { ...IOS_COMMANDS, getDeviceHealth: ['show processes cpu sorted', 'show memory statistics'] },
  }),
  cisco_nxos: ciscoLike('cisco_nxos', {
    // NX-OS logs users in at privileged level; there is no enable step.
    enable: undefined,
    commands: {
      getConfig: 'show running-config',
      getStartupConfig: 'show startup-config',
      getDeviceInfo: ['show version', 'show inventory'],
      getDeviceHealth: ['show system resources'],
      isAlive: '',
      operational: {
        interfaces: 'show interface brief',
        routes: 'show ip route',
        arp: 'show ip arp',
        neighbors: 'show cdp neighbors',
        clock: 'show clock',
        version: 'show version',
      },
      saveConfig: 'copy running-config startup-config',
      macAddresses: 'show interface',
    },
  }),
  arista_eos: ciscoLike('arista_eos', {
    commands: {
      getConfig: 'show running-config',
      getStartupConfig: 'show startup-config',
      getDeviceInfo: ['show version', 'show inventory'],
      getDeviceHealth: ['show processes top once', 'show version'],
      isAlive: '',
      operational: {
        interfaces: 'show ip interface brief',
        routes: 'show ip route',
        arp: 'show ip arp',
        neighbors: 'show lldp neighbors',
        clock: 'show clock',
        version: 'show version',
      },
      saveConfig: 'copy running-config startup-config',
      macAddresses: 'show interfaces',
    },
  }),
  juniper_junos: {
    deviceType: 'juniper_junos',
    transport: DEVICE_TRANSPORTS.SHELL,
    promptPattern: JUNOS_PROMPT,
    // In Junos `#` is the configuration prompt; operational mode (`>`) is already fully privileged.
    privilegedTerminators: ['>', '#'],
    isConfigPrompt: (prompt) => prompt.term === '#',
    cliFromShell: { command: 'cli', shellTerminators: ['%'] },
    sessionPreparation: ['set cli screen-length 0', 'set cli screen-width 511', 'set cli complete-on-space off'],
    pagerPattern: /\s*---\(more(?: \d+%)?\)---\s*$/,
    configCommand: 'configure',
    configExitCommand: 'exit configuration-mode',
    configExitConfirm: /Exit with uncommitted changes\? \[yes,no\] \(yes\)\s*$/,
    commitCommand: 'commit',
    commitSuccess: /commit complete/,
    configTerminator: /#\s?$/,
    errorPatterns: JUNOS_ERRORS,
    contextLinePattern: /^\s*(?:\[edit(?: [^\]]*)?\]|\{(?:master|backup|primary|secondary|linecard)(?::[\w-]+)?\})\s*$/,
    commands: {
      getConfig: 'show configuration',
      getDeviceInfo: ['show version', 'show chassis hardware'],
      getDeviceHealth: ['show chassis routing-engine', 'show system uptime'],
      isAlive: '',
      operational: {
        interfaces: 'show interfaces terse',
        routes: 'show route',
        arp: 'show arp no-resolve',
        neighbors: 'show lldp neighbors',
        clock: 'show system uptime',
        version: 'show version',
      },
      macAddresses: 'show interfaces',
    },
  },
  linux: {
    deviceType: 'linux',
    // One exec channel per command: no prompt guessing, real exit codes, no paging.
    transport: DEVICE_TRANSPORTS.EXEC,
    promptPattern: LINUX_PROMPT,
    privilegedTerminators: ['#'],
    isConfigPrompt: () => false,
    sessionPreparation: [],
    configTerminator: /[$#]\s?$/,
    errorPatterns: LINUX_ERRORS,
    commands: {
      getConfig: 'cat /etc/hostname /etc/hosts',
      getDeviceInfo: ['uname -a', 'cat /etc/os-release'],
      getDeviceHealth: ['cat /proc/loadavg', 'cat /proc/meminfo', 'df -P /'],
      isAlive: 'true',
      operational: {
        interfaces: 'cat /proc/net/dev',
        routes: 'cat /proc/net/route',
        arp: 'cat /proc/net/arp',
        neighbors: 'cat /proc/net/arp',
        clock: 'date -u +%Y-%m-%dT%H:%M:%SZ',
        version: 'uname -a',
      },
      macAddresses: 'cat /sys/class/net/*/address',
    },
  },
  generic: {
    deviceType: 'generic',
    transport: DEVICE_TRANSPORTS.SHELL,
    promptPattern: GENERIC_PROMPT,
    privilegedTerminators: ['#'],
    isConfigPrompt: ciscoModeIsConfig,
    sessionPreparation: ['terminal length 0'],
    pagerPattern: /\s*-+ ?More ?-+\s*$|\s*---\(more(?: \d+%)?\)---\s*$/,
    configCommand: 'configure terminal',
    configExitCommand: 'end',
    configTerminator: /#\s*$/,
    errorPatterns: [...CISCO_ERRORS, ...JUNOS_ERRORS],
    commands: { ...IOS_COMMANDS, saveConfig: undefined },
  },
};

/** True when `value` names a device type with a profile of its own. */
export function isDeviceType(value: unknown): value is DeviceType {
  return typeof value === 'string' && (DEVICE_TYPES as readonly string[]).includes(value);
}

/**
 * The profile of a netmiko device type. Unknown types (`hp_procurve`, `cisco_xr`, …) get the `generic`
 * profile: a Cisco-like prompt, `terminal length 0`, both Cisco and Junos error lines.
 */
export function getDeviceTypeProfile(deviceType: string): DeviceTypeProfile {
  return isDeviceType(deviceType) ? PROFILES[deviceType] : PROFILES.generic;
}

/** Parses one line as a prompt of the profile; `undefined` when it is not one. */
export function matchPrompt(profile: DeviceTypeProfile, line: string): PromptMatch | undefined {
  // Prompts are short; refusing long lines keeps an output line ending in `#` from being taken for one.
  if (line.length === 0 || line.length > 160) return undefined;
  const m = profile.promptPattern.exec(line);
  if (m?.groups === undefined) return undefined;
  const base = m.groups.base ?? '';
  const rawMode = m.groups.mode ?? '';
  const mode = rawMode.startsWith('(') && rawMode.endsWith(')') ? rawMode.slice(1, -1) : rawMode;
  return { line, base, mode, term: m.groups.term ?? '' };
}

/** Lines of `output` that the profile recognises as the device's own error messages. */
export function findErrorLines(profile: DeviceTypeProfile, output: string): string[] {
  return output.split('\n').filter((line) => profile.errorPatterns.some((p) => p.test(line)));
}

/** Escapes a string for use inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
