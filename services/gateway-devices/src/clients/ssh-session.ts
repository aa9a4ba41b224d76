import { AppError, addSecretTexts, hasCode, isAppError, noSecrets, secretMask } from '@nap/contracts';
import type { SecretMask } from '@nap/contracts';
import type { ClientChannel } from 'ssh2';
import { ChannelReader } from './channel-reader';
import type { ReadMatcher } from './channel-reader';
import { DEVICE_TRANSPORTS, findErrorLines, getDeviceTypeProfile, matchPrompt } from '../domain/device-types';
import type { DeviceTypeProfile, PromptMatch } from '../domain/device-types';
import { callerPattern } from '../domain/caller-pattern';
import { boundedBy, describeTarget, openSshConnection } from './ssh-connection';
import type { SshConnection, SshTarget } from './ssh-connection';
import { SEND_COMMAND_DEFAULTS, SEND_CONFIG_SET_DEFAULTS } from './netmiko-options';
import type { SendCommandOptions, SendConfigSetOptions } from './netmiko-options';

/** How to reach and drive one device over SSH. */
export interface SshSessionOptions extends SshTarget {
  /** netmiko device type (`gw_network_os`): `cisco_ios`, `arista_eos`, `juniper_junos`, `linux`, … */
  deviceType: string;
  /** Enable secret (netmiko `secret`, inventory `gw_become_pass`). Never logged. */
  secret?: string;
  /** Enter privileged mode right after login (inventory `gw_become`); defaults to true when `secret` is set. */
  become?: boolean;
  /** How long to wait for the first prompt after login; defaults to {@link DEFAULT_PROMPT_TIMEOUT_MS}. */
  promptTimeoutMs?: number;
  /** Send the device type's paging-disable commands at login; defaults to true. */
  disablePaging?: boolean;
  /**
   * Masks the secrets the device may show (its credentials, its inventory's secret variables) in the
   * end of its screen an error quotes (`lastLine`), before that line is cut; defaults to a mask of the
   * session's password, enable secret and passphrase. The caller masks the rest of what a session gives.
   */
  mask?: SecretMask;
}

/** What one command gave. */
export interface SendCommandResult {
  command: string;
  output: string;
  /** Lines by which the device reported an error (`% Invalid input…`, `syntax error`); never hidden. */
  errorLines: string[];
  /** True when the device reported an error (error lines, or a non-zero exit status in exec mode). */
  failed: boolean;
  /** Exec mode only: the command's exit status. */
  exitCode?: number;
  /** Exec mode only: what the command wrote to stderr. */
  stderr?: string;
}

/** A device error line and the command that caused it. */
export interface ConfigCommandError {
  command: string;
  line: string;
}

/** What a configuration set gave. */
export interface SendConfigSetResult {
  /** The session transcript, as netmiko returns it (config mode entry and exit included). */
  output: string;
  /** Error lines the device printed, per command. */
  errors: ConfigCommandError[];
  /** True when any command made the device print an error line (or exit non-zero in exec mode). */
  failed: boolean;
}

/** A netmiko-like session with one device. */
export interface SshSession {
  /** `device "core-1" (10.0.0.1:22)`. */
  readonly label: string;
  readonly profile: DeviceTypeProfile;
  /**
   * Logs in, finds the prompt, disables paging and enters privileged mode when asked.
   * Errors: `DEVICE_UNREACHABLE`, `DEVICE_TIMEOUT`, `DEVICE_SSH_AUTH_FAILED`, `DEVICE_HOST_KEY_CHANGED`, `DEVICE_HOST_KEY_UNKNOWN`,
   * `DEVICE_PROMPT_NOT_DETECTED`.
   */
  connect(): Promise<void>;
  /** Runs one command (netmiko `send_command`). Errors: `DEVICE_TIMEOUT`, `DEVICE_UNREACHABLE` (session lost). */
  sendCommand(command: string, options?: SendCommandOptions): Promise<SendCommandResult>;
  /**
   * Sends configuration commands (netmiko `send_config_set`). Errors: `DEVICE_COMMAND_FAILED` (error
   * pattern matched, config mode could not be entered or left, commit failed), `DEVICE_TIMEOUT`.
   */
  sendConfigSet(commands: string | readonly string[], options?: SendConfigSetOptions): Promise<SendConfigSetResult>;
  /** Commits the candidate configuration (Junos); `DEVICE_COMMAND_FAILED` when the device refuses. */
  commit(options?: { read_timeout?: number }): Promise<string>;
  /** Enters privileged mode; `DEVICE_SSH_AUTH_FAILED` when the device refuses the secret. */
  enable(): Promise<void>;
  /** Sends a newline and returns the prompt line; `DEVICE_PROMPT_NOT_DETECTED` when none comes back. */
  findPrompt(timeoutMs?: number): Promise<string>;
  /** True when the session answers a prompt (shell) or runs `true` (exec) within `timeoutMs`. */
  isAlive(timeoutMs?: number): Promise<boolean>;
  /** The current prompt line (shell sessions). */
  prompt(): string | undefined;
  /** Fingerprint of the host key the device presented. */
  hostKeyFingerprint(): string | undefined;
  /** Ends the session and waits until the connection has closed. Idempotent. */
  close(): Promise<void>;
}

/** Wait for the first prompt after login. */
export const DEFAULT_PROMPT_TIMEOUT_MS = 10_000;

/** Creates a session; call `connect()` before anything else. */
export function createSshSession(options: SshSessionOptions): SshSession {
  return new CliSession(options);
}

/** Opens a session, runs `fn` with it and always closes it. */
export async function withSshSession<T>(options: SshSessionOptions, fn: (session: SshSession) => Promise<T>): Promise<T> {
  const session = createSshSession(options);
  try {
    await session.connect();
    return await fn(session);
  } finally {
    await session.close();
  }
}

function secondsToMs(seconds: number): number {
  return Math.max(1, Math.round(seconds * 1000));
}

function lastLineOf(text: string): string {
  return text.slice(text.lastIndexOf('\n') + 1);
}

/** Characters of the device's last line an error quotes (`details.lastLine`): its end. */
const LAST_LINE_CHARS = 80;

class CliSession implements SshSession {
  readonly label: string;
  readonly profile: DeviceTypeProfile;
  private connection: SshConnection | undefined;
  private reader: ChannelReader | undefined;
  private current: PromptMatch | undefined;
  private base = '';
  private broken: AppError | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closing = false;

  constructor(private readonly options: SshSessionOptions) {
    this.profile = getDeviceTypeProfile(options.deviceType);
    this.label = describeTarget(options);
  }

  /**
   * The end of the last line on the device's screen, for an error: masked before it is cut, so that
   * the cut never leaves the end of a secret (a command echoed with its password) for masks to miss.
   */
  private screenEnd(): string {
    const { password, secret, passphrase } = this.options;
    const mask = this.options.mask ?? secretMask(addSecretTexts(noSecrets(), password, secret, passphrase));
    return mask.text(lastLineOf(this.reader?.peek() ?? '')).slice(-LAST_LINE_CHARS);
  }

  private get user(): string {
    return this.options.username;
  }

  private get isExec(): boolean {
    return this.profile.transport === DEVICE_TRANSPORTS.EXEC;
  }

  prompt(): string | undefined {
    return this.current?.line;
  }

  hostKeyFingerprint(): string | undefined {
    return this.connection?.hostKeyFingerprint;
  }

  // One operation at a time per session: a shell has one prompt, and interleaved reads would mix outputs.
  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  connect(): Promise<void> {
    return this.serialize(async () => {
      if (this.connection !== undefined) throw new AppError('INTERNAL', `The session with ${this.label} is already connected`);
      this.connection = await openSshConnection(this.options);
      if (this.isExec) return;
      try {
        await this.openShell();
      } catch (err) {
        await this.connection.close();
        throw err;
      }
    });
  }

  private async openShell(): Promise<void> {
    const connection = this.requireConnection();
    const timeoutMs = this.options.promptTimeoutMs ?? DEFAULT_PROMPT_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const channel = await boundedBy(
      new Promise<ClientChannel>((resolve, reject) => {
        // A wide terminal keeps devices from wrapping long lines into the output.
        connection.client.shell({ term: 'vt100', cols: 511, rows: 24 }, (err, stream) => {
          if (err !== undefined && err !== null) {
            reject(
              new AppError('DEVICE_UNREACHABLE', `${this.label} refused an interactive shell for user "${this.user}"`, { cause: err }),
            );
          } else {
            resolve(stream);
          }
        });
      }),
      timeoutMs,
      () =>
        new AppError('DEVICE_TIMEOUT', `${this.label} did not open an interactive shell for user "${this.user}" within ${timeoutMs} ms`, {
          details: { timeoutMs },
        }),
    );
    channel.stderr.on('data', () => undefined);
    this.reader = new ChannelReader(channel, {
      pagerPattern: this.profile.pagerPattern,
      closedError: () => this.markBroken(new AppError('DEVICE_UNREACHABLE', `${this.label} closed the SSH session of user "${this.user}"`)),
      overflowError: (limit) =>
        this.markBroken(
          new AppError('UPSTREAM_FAILED', `${this.label} sent more than ${limit / 1024 / 1024} MiB of output for one read`, {
            details: { limitChars: limit },
          }),
        ),
    });
    const notDetected = (): AppError =>
      new AppError(
        'DEVICE_PROMPT_NOT_DETECTED',
        `${this.label} logged in user "${this.user}" but showed no ${this.profile.deviceType} prompt within ${timeoutMs} ms; check the device type`,
        { details: { deviceType: this.profile.deviceType, lastLine: this.screenEnd() } },
      );
    // Most devices print a prompt by themselves after the banner; the ones that wait get a newline
    // half-way, as netmiko's find_prompt sends one.
    let text: string;
    try {
      text = await this.reader.readUntil(this.anyPromptMatcher(), Math.floor((deadline - Date.now()) / 2), notDetected);
    } catch (err) {
      if (!hasCode(err, 'DEVICE_PROMPT_NOT_DETECTED')) throw err;
      this.reader.write('\n');
      text = await this.reader.readUntil(this.anyPromptMatcher(), deadline - Date.now(), notDetected);
    }
    this.updatePrompt(text);
    this.base = this.current?.base ?? '';

    const cli = this.profile.cliFromShell;
    if (cli !== undefined && this.current !== undefined && cli.shellTerminators.includes(this.current.term)) {
      await this.exchange(cli.command, {
        normalize: true,
        cmdVerify: true,
        timeoutMs: Math.max(1, deadline - Date.now()),
        until: (t) => {
          const m = matchPrompt(this.profile, lastLineOf(t));
          return m !== undefined && !cli.shellTerminators.includes(m.term) ? t.length : undefined;
        },
      });
      this.base = this.current?.base ?? this.base;
    }

    if (this.options.disablePaging !== false) {
      for (const command of this.profile.sessionPreparation) {
        await this.runShellCommand(command, { read_timeout: timeoutMs / 1000 });
      }
    }
    const become = this.options.become ?? this.options.secret !== undefined;
    if (become) await this.enableUnlocked();
  }

  private requireConnection(): SshConnection {
    if (this.broken !== undefined) throw this.broken;
    if (this.connection === undefined || this.closing) {
      throw new AppError('INTERNAL', `The session with ${this.label} is not connected; call connect() first`);
    }
    return this.connection;
  }

  private requireReader(): ChannelReader {
    this.requireConnection();
    if (this.reader === undefined) throw new AppError('INTERNAL', `The session with ${this.label} has no shell`);
    return this.reader;
  }

  // After a timeout the device may still be printing: the shell is out of step and is not reused.
  private markBroken(err: AppError): AppError {
    if (this.broken === undefined) {
      this.broken = new AppError(err.code, `${err.message}; the session was closed`, { cause: err });
      void this.connection?.close();
    }
    return err;
  }

  private updatePrompt(text: string): PromptMatch | undefined {
    const match = matchPrompt(this.profile, lastLineOf(text));
    if (match !== undefined) this.current = match;
    return match;
  }

  private anyPromptMatcher(extra?: RegExp): ReadMatcher {
    return (text) => {
      const line = lastLineOf(text);
      if (matchPrompt(this.profile, line) !== undefined) return text.length;
      if (extra !== undefined && extra.test(line)) return text.length;
      return undefined;
    };
  }

  private basePromptMatcher(): ReadMatcher {
    return (text) => {
      const m = matchPrompt(this.profile, lastLineOf(text));
      return m !== undefined && m.base === this.base ? text.length : undefined;
    };
  }

  // The prompt of this device, or — when a command changed the hostname — any prompt line that ends
  // with the terminator (netmiko's `terminator` fallback), or one of the extra patterns.
  private configMatcher(terminator: RegExp, extra?: RegExp): ReadMatcher {
    return (text) => {
      const line = lastLineOf(text);
      const m = matchPrompt(this.profile, line);
      if (m !== undefined && (m.base === this.base || terminator.test(line))) return text.length;
      if (extra !== undefined && extra.test(line)) return text.length;
      return undefined;
    };
  }

  private timeoutError(command: string, timeoutMs: number): () => AppError {
    return () =>
      this.markBroken(
        new AppError('DEVICE_TIMEOUT', `${this.label} did not finish "${command}" within ${timeoutMs / 1000} s (user "${this.user}")`, {
          details: { command, timeoutMs, lastLine: this.screenEnd() },
        }),
      );
  }

  /** Writes a command and reads its echo (when verifying) and then up to the end matcher. */
  private async exchange(
    command: string,
    opts: { normalize: boolean; cmdVerify: boolean; timeoutMs: number; until: ReadMatcher; secret?: boolean },
  ): Promise<string> {
    const reader = this.requireReader();
    reader.drain();
    const line = opts.normalize ? `${command.trimEnd()}\n` : command;
    const deadline = Date.now() + opts.timeoutMs;
    const onTimeout = this.timeoutError(opts.secret === true ? '<secret>' : command.trim(), opts.timeoutMs);
    reader.write(line);
    let text = '';
    const echo = command.trim();
    if (opts.cmdVerify && echo !== '' && opts.secret !== true) {
      text = await reader.readUntil(
        (t) => {
          const at = t.indexOf(echo);
          return at < 0 ? undefined : at + echo.length;
        },
        deadline - Date.now(),
        onTimeout,
      );
    }
    text += await reader.readUntil((t) => (opts.until(text + t) === undefined ? undefined : t.length), deadline - Date.now(), onTimeout);
    this.updatePrompt(text);
    return text;
  }

  private isPrivileged(): boolean {
    return this.current !== undefined && this.profile.privilegedTerminators.includes(this.current.term);
  }

  private inConfigMode(): boolean {
    return this.current !== undefined && this.profile.isConfigPrompt(this.current);
  }

  enable(): Promise<void> {
    return this.serialize(() => (this.isExec ? Promise.resolve() : this.enableUnlocked()));
  }

  private async enableUnlocked(): Promise<void> {
    const enable = this.profile.enable;
    if (enable === undefined || this.isPrivileged()) return;
    const timeoutMs = secondsToMs(SEND_COMMAND_DEFAULTS.read_timeout);
    let text = await this.exchange(enable.command, {
      normalize: true,
      cmdVerify: true,
      timeoutMs,
      until: this.anyPromptMatcher(enable.passwordPrompt),
    });
    // IOS asks up to three times before giving up with "% Bad secrets"; answer once, then send empty
    // lines so the device comes back to its prompt.
    for (let attempt = 0; attempt < 3 && enable.passwordPrompt.test(lastLineOf(text)); attempt++) {
      const answer = attempt === 0 ? (this.options.secret ?? '') : '';
      text = await this.exchange(answer, {
        normalize: true,
        cmdVerify: false,
        timeoutMs,
        until: this.anyPromptMatcher(enable.passwordPrompt),
        secret: true,
      });
    }
    this.updatePrompt(text);
    if (!this.isPrivileged()) {
      throw new AppError(
        'DEVICE_SSH_AUTH_FAILED',
        `${this.label} refused privileged mode ("${enable.command}") for user "${this.user}"; check the enable secret`,
        {
          details: { username: this.user },
        },
      );
    }
  }

  findPrompt(timeoutMs = DEFAULT_PROMPT_TIMEOUT_MS): Promise<string> {
    return this.serialize(async () => {
      const reader = this.requireReader();
      reader.drain();
      reader.write('\n');
      const text = await reader.readUntil(this.anyPromptMatcher(), timeoutMs, () =>
        this.markBroken(
          new AppError('DEVICE_PROMPT_NOT_DETECTED', `${this.label} showed no prompt within ${timeoutMs} ms (user "${this.user}")`),
        ),
      );
      const match = this.updatePrompt(text);
      return match?.line ?? lastLineOf(text);
    });
  }

  async isAlive(timeoutMs = 5_000): Promise<boolean> {
    if (this.connection === undefined || this.connection.isClosed() || this.broken !== undefined) return false;
    try {
      if (this.isExec) {
        const result = await this.serialize(() => this.runExec(this.profile.commands.isAlive || 'true', timeoutMs));
        return result.exitCode === 0;
      }
      await this.findPrompt(timeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  sendCommand(command: string, options: SendCommandOptions = {}): Promise<SendCommandResult> {
    return this.serialize(async () => {
      if (this.isExec) {
        const timeoutMs = secondsToMs(options.read_timeout ?? SEND_COMMAND_DEFAULTS.read_timeout);
        const result = await this.runExec(command, timeoutMs);
        const output = options.strip_prompt === false ? result.stdout : result.stdout.replace(/\n$/, '');
        const errorLines =
          result.exitCode === 0
            ? []
            : nonEmptyLines(result.stderr).concat(result.stderr.trim() === '' ? [`exit status ${result.exitCode}`] : []);
        return { command, output, errorLines, failed: result.exitCode !== 0, exitCode: result.exitCode, stderr: result.stderr };
      }
      return this.runShellCommand(command, options);
    });
  }

  private async runShellCommand(command: string, options: SendCommandOptions): Promise<SendCommandResult> {
    const expect = options.expect_string;
    const expectRegex = expect !== undefined && expect !== '' ? callerPattern(expect, '', 'expect_string') : undefined;
    const until: ReadMatcher =
      expectRegex !== undefined ? (text) => (expectRegex.test(text) ? text.length : undefined) : this.basePromptMatcher();
    const raw = await this.exchange(command, {
      normalize: options.normalize ?? SEND_COMMAND_DEFAULTS.normalize,
      cmdVerify: options.cmd_verify ?? SEND_COMMAND_DEFAULTS.cmd_verify,
      timeoutMs: secondsToMs(options.read_timeout ?? SEND_COMMAND_DEFAULTS.read_timeout),
      until,
    });
    const output = this.sanitize(raw, command, {
      stripCommand: options.strip_command ?? SEND_COMMAND_DEFAULTS.strip_command,
      stripPrompt: options.strip_prompt ?? SEND_COMMAND_DEFAULTS.strip_prompt,
    });
    const errorLines = findErrorLines(this.profile, output);
    return { command, output, errorLines, failed: errorLines.length > 0 };
  }

  private sanitize(raw: string, command: string, opts: { stripCommand: boolean; stripPrompt: boolean }): string {
    let text = raw;
    const echo = command.trim();
    const at = echo === '' ? -1 : text.indexOf(echo);
    if (at >= 0) {
      // Whatever came before the echo is a stale prompt, not output.
      const lineStart = text.lastIndexOf('\n', at) + 1;
      text = text.slice(lineStart);
      if (opts.stripCommand) {
        const nl = text.indexOf('\n');
        text = nl < 0 ? '' : text.slice(nl + 1);
      }
    }
    if (opts.stripPrompt) {
      const lines = text.split('\n');
      const last = lines[lines.length - 1] ?? '';
      if (matchPrompt(this.profile, last) !== undefined || (this.base !== '' && last.includes(this.base))) lines.pop();
      // Junos prints its edit context (`[edit]`) and RE context (`{master:0}`) above the prompt.
      const context = this.profile.contextLinePattern;
      while (context !== undefined && lines.length > 0 && context.test(lines[lines.length - 1] ?? '')) lines.pop();
      while (lines.length > 0 && (lines[lines.length - 1] ?? '').trim() === '') lines.pop();
      text = lines.join('\n');
    }
    return text;
  }

  sendConfigSet(commands: string | readonly string[], options: SendConfigSetOptions = {}): Promise<SendConfigSetResult> {
    return this.serialize(() => (this.isExec ? this.execConfigSet(commands, options) : this.shellConfigSet(commands, options)));
  }

  private async shellConfigSet(commands: string | readonly string[], options: SendConfigSetOptions): Promise<SendConfigSetResult> {
    const list = (typeof commands === 'string' ? [commands] : [...commands]).filter((c) => c.trim() !== '');
    const timeoutMs = secondsToMs(options.read_timeout ?? SEND_CONFIG_SET_DEFAULTS.read_timeout);
    const bypass = callerPattern(options.bypass_commands ?? SEND_CONFIG_SET_DEFAULTS.bypass_commands, '', 'bypass_commands');
    const cmdVerify = (options.cmd_verify ?? SEND_CONFIG_SET_DEFAULTS.cmd_verify) && !list.some((c) => bypass.test(c));
    const errorPattern = options.error_pattern ?? SEND_CONFIG_SET_DEFAULTS.error_pattern;
    const errorRegex = errorPattern === '' ? undefined : callerPattern(errorPattern, 'm', 'error_pattern');
    const terminator =
      options.terminator === undefined ? this.profile.configTerminator : callerPattern(`${options.terminator}\\s?$`, '', 'terminator');
    const errors: ConfigCommandError[] = [];
    let output = '';

    if (options.enter_config_mode ?? SEND_CONFIG_SET_DEFAULTS.enter_config_mode) {
      output += await this.enterConfigMode(options.config_mode_command, timeoutMs);
    }
    for (const command of list) {
      const text = await this.exchange(command, { normalize: true, cmdVerify, timeoutMs, until: this.configMatcher(terminator) });
      this.adoptPrompt();
      output += text;
      const lines = findErrorLines(this.profile, text);
      for (const line of lines) errors.push({ command, line });
      if (errorRegex !== undefined && errorRegex.test(text)) {
        if (options.exit_config_mode ?? SEND_CONFIG_SET_DEFAULTS.exit_config_mode) await this.tryExitConfigMode(timeoutMs);
        throw new AppError(
          'DEVICE_COMMAND_FAILED',
          `${this.label} reported an error for configuration command "${command.trim()}": ${lines[0] ?? 'error pattern matched'}`,
          {
            details: { command: command.trim(), errorLines: lines.length > 0 ? lines : nonEmptyLines(text).slice(-3) },
          },
        );
      }
    }
    if (options.commit === true && this.profile.commitCommand !== undefined) {
      output += await this.commitUnlocked(timeoutMs);
    }
    if (options.exit_config_mode ?? SEND_CONFIG_SET_DEFAULTS.exit_config_mode) output += await this.exitConfigMode(timeoutMs);
    output = this.sanitize(output, '', {
      stripCommand: options.strip_command ?? SEND_CONFIG_SET_DEFAULTS.strip_command,
      stripPrompt: options.strip_prompt ?? SEND_CONFIG_SET_DEFAULTS.strip_prompt,
    });
    return { output, errors, failed: errors.length > 0 };
  }

  // A configuration command may rename the device; take the new name so later reads wait for it.
  private adoptPrompt(): void {
    if (this.current !== undefined) this.base = this.current.base;
  }

  private async enterConfigMode(command: string | undefined, timeoutMs: number): Promise<string> {
    if (this.inConfigMode()) return '';
    if (this.profile.enable !== undefined && !this.isPrivileged()) await this.enableUnlocked();
    const configCommand = command ?? this.profile.configCommand;
    if (configCommand === undefined) return '';
    const text = await this.exchange(configCommand, {
      normalize: true,
      cmdVerify: true,
      timeoutMs,
      until: this.configMatcher(this.profile.configTerminator),
    });
    if (!this.inConfigMode()) {
      throw new AppError(
        'DEVICE_COMMAND_FAILED',
        `${this.label} did not enter configuration mode with "${configCommand}" (user "${this.user}")`,
        {
          details: { command: configCommand, errorLines: findErrorLines(this.profile, text) },
        },
      );
    }
    return text;
  }

  private async exitConfigMode(timeoutMs: number): Promise<string> {
    const exitCommand = this.profile.configExitCommand;
    if (!this.inConfigMode() || exitCommand === undefined) return '';
    const confirm = this.profile.configExitConfirm;
    let text = await this.exchange(exitCommand, {
      normalize: true,
      cmdVerify: true,
      timeoutMs,
      until: this.configMatcher(this.profile.configTerminator, confirm),
    });
    if (confirm !== undefined && confirm.test(lastLineOf(text))) {
      text += await this.exchange('yes', {
        normalize: true,
        cmdVerify: true,
        timeoutMs,
        until: this.configMatcher(this.profile.configTerminator),
      });
    }
    this.adoptPrompt();
    if (this.inConfigMode()) {
      throw new AppError(
        'DEVICE_COMMAND_FAILED',
        `${this.label} did not leave configuration mode with "${exitCommand}" (user "${this.user}")`,
        {
          details: { command: exitCommand },
        },
      );
    }
    return text;
  }

  private async tryExitConfigMode(timeoutMs: number): Promise<void> {
    try {
      await this.exitConfigMode(timeoutMs);
    } catch (err) {
      // The error being reported matters more; a session stuck in config mode is closed by the caller.
      if (!isAppError(err)) throw err;
    }
  }

  commit(options: { read_timeout?: number } = {}): Promise<string> {
    return this.serialize(async () => {
      if (this.profile.commitCommand === undefined) {
        throw new AppError('UNPROCESSABLE', `${this.label} is a ${this.profile.deviceType} device, which has no commit`);
      }
      const timeoutMs = secondsToMs(options.read_timeout ?? SEND_CONFIG_SET_DEFAULTS.read_timeout);
      let output = await this.enterConfigMode(undefined, timeoutMs);
      output += await this.commitUnlocked(timeoutMs);
      output += await this.exitConfigMode(timeoutMs);
      return output;
    });
  }

  private async commitUnlocked(timeoutMs: number): Promise<string> {
    const command = this.profile.commitCommand ?? 'commit';
    const text = await this.exchange(command, {
      normalize: true,
      cmdVerify: true,
      timeoutMs,
      until: this.configMatcher(this.profile.configTerminator),
    });
    this.adoptPrompt();
    const success = this.profile.commitSuccess;
    if (success !== undefined && !success.test(text)) {
      const errorLines = findErrorLines(this.profile, text);
      throw new AppError(
        'DEVICE_COMMAND_FAILED',
        `${this.label} refused to commit the configuration: ${errorLines[0] ?? nonEmptyLines(text).slice(1, 2)[0] ?? 'no confirmation'}`,
        {
          details: { command, errorLines },
        },
      );
    }
    return text;
  }

  private async execConfigSet(commands: string | readonly string[], options: SendConfigSetOptions): Promise<SendConfigSetResult> {
    const list = (typeof commands === 'string' ? [commands] : [...commands]).filter((c) => c.trim() !== '');
    const timeoutMs = secondsToMs(options.read_timeout ?? SEND_CONFIG_SET_DEFAULTS.read_timeout);
    const errorPattern = options.error_pattern ?? SEND_CONFIG_SET_DEFAULTS.error_pattern;
    const errorRegex = errorPattern === '' ? undefined : callerPattern(errorPattern, 'm', 'error_pattern');
    const errors: ConfigCommandError[] = [];
    let output = '';
    for (const command of list) {
      const result = await this.runExec(command, timeoutMs);
      const text = result.stdout + result.stderr;
      output += text;
      if (result.exitCode !== 0) {
        const lines = nonEmptyLines(result.stderr);
        for (const line of lines.length > 0 ? lines : [`exit status ${result.exitCode}`]) errors.push({ command, line });
      }
      if (errorRegex !== undefined && errorRegex.test(text)) {
        throw new AppError('DEVICE_COMMAND_FAILED', `${this.label} reported an error for command "${command.trim()}"`, {
          details: { command: command.trim(), exitCode: result.exitCode, errorLines: nonEmptyLines(result.stderr).slice(-3) },
        });
      }
    }
    return { output, errors, failed: errors.length > 0 };
  }

  private runExec(command: string, timeoutMs: number): Promise<{ stdout: string; stderr: string; exitCode: number }> {
    const connection = this.requireConnection();
    return new Promise((resolve, reject) => {
      let settled = false;
      let stdout = '';
      let stderr = '';
      let exitCode = -1;
      let channel: ClientChannel | undefined;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        channel?.close();
        reject(
          new AppError('DEVICE_TIMEOUT', `${this.label} did not finish "${command}" within ${timeoutMs / 1000} s (user "${this.user}")`, {
            details: { command, timeoutMs },
          }),
        );
      }, timeoutMs);
      connection.client.exec(command, (err, stream) => {
        if (settled) {
          stream?.close();
          return;
        }
        if (err !== undefined && err !== null) {
          settled = true;
          clearTimeout(timer);
          reject(
            new AppError('DEVICE_UNREACHABLE', `${this.label} refused to run a command for user "${this.user}": ${err.message}`, {
              cause: err,
            }),
          );
          return;
        }
        channel = stream;
        stream.setEncoding('utf8');
        stream.stderr.setEncoding('utf8');
        stream.on('data', (chunk: string) => {
          stdout += chunk;
        });
        stream.stderr.on('data', (chunk: string) => {
          stderr += chunk;
        });
        stream.on('exit', (code: number | null) => {
          exitCode = code ?? -1;
        });
        stream.on('close', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ stdout, stderr, exitCode });
        });
      });
    });
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.connection?.close();
  }
}

function nonEmptyLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
}
