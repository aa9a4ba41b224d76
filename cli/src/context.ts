import { isatty } from 'node:tty';
import type { Colors } from 'picocolors/types';
import type { LoadedConfig, Profile } from './config/profiles';
import { loadConfig, namedProfile, resolveProfile } from './config/profiles';
import { EXIT, usage } from './errors';
import { Client } from './http/client';
import type { TokenCache } from './http/token-cache';
import { createTokenCache, tokenCacheFile } from './http/token-cache';
import { loadSpinner } from './lazy';
import { colorsFor } from './output/colors';
import type { OutputFormat } from './output/format';
import { serialize } from './output/format';
import { terminalText } from './output/terminal';

/** The global flags, valid before or after the command. */
export interface GlobalOptions {
  profile?: string;
  output: OutputFormat;
  debug: boolean;
  config?: string;
  color: boolean;
}

export interface Io {
  /**
   * What `-f -`, `@-` and `--password-stdin` read, and where `nap password` asks on a terminal;
   * absent: process.stdin, touched only then (it makes a pipe non-blocking).
   */
  stdin?: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/**
 * What every command receives: the global options, the output streams with their colours, and
 * clients of the platforms it talks to (made on first use, so that `nap --version` reads no file).
 */
export class Context {
  private loaded: LoadedConfig | undefined;
  private readonly clients = new Map<string, Client>();
  private tokenCache: TokenCache | undefined;
  private outColors: Colors | undefined;
  private errColors: Colors | undefined;
  /** The option that read stdin, once one has: stdin can be read once. */
  private stdinReader: string | undefined;

  constructor(
    readonly options: GlobalOptions,
    readonly io: Io,
  ) {}

  get format(): OutputFormat {
    return this.options.output;
  }

  get colors(): Colors {
    this.outColors ??= colorsFor(this.io.stdout, this.io.env, !this.options.color);
    return this.outColors;
  }

  /** The terminal's width when stdout is one (tables are cut to it); undefined for a pipe or a file. */
  get width(): number | undefined {
    const out = this.io.stdout;
    return out.isTTY === true && typeof out.columns === 'number' && out.columns > 0 ? out.columns : undefined;
  }

  get stderrColors(): Colors {
    this.errColors ??= colorsFor(this.io.stderr, this.io.env, !this.options.color);
    return this.errColors;
  }

  /**
   * Text on stdout, through the one rule of {@link terminalText}: in the human format, control and
   * bidirectional formatting characters are shown escaped (`\x1b`), never raw, and only the styles
   * of `nap` are colours; `-o json|yaml` is written exactly to a pipe or a file, and to a terminal
   * with those characters as the escapes of JSON and YAML (`\u202e`: the same value).
   */
  out(text: string): void {
    const shown = this.format === 'human' || this.io.stdout.isTTY === true ? terminalText(text, this.colors.isColorSupported) : text;
    this.io.stdout.write(shown.endsWith('\n') || shown === '' ? shown : `${shown}\n`);
  }

  /** A line for people on stderr (progress, notes), so that stdout stays the document; escaped as {@link out} escapes human text. */
  note(text: string): void {
    this.io.stderr.write(`${terminalText(text, this.stderrColors.isColorSupported)}\n`);
  }

  /** The document as the API gave it for `-o json|yaml` (quoted for a terminal where YAML must escape); the human rendering otherwise. */
  print(doc: unknown, human: () => string): void {
    this.out(this.format === 'human' ? human() : this.document(doc, this.format));
  }

  /** `doc` as JSON or YAML for stdout: YAML for a terminal quotes every string that holds a character {@link out} escapes. */
  document(doc: unknown, format: 'json' | 'yaml'): string {
    return serialize(doc, format, { terminal: this.io.stdout.isTTY === true });
  }

  /** Whether stdin is a terminal, where a person can answer a question (and where nothing was piped in). */
  stdinIsTerminal(): boolean {
    return this.io.stdin?.isTTY ?? isatty(0);
  }

  /**
   * The whole of stdin as text, read asynchronously to its end, for the option `flag` (`-f -`,
   * `--data @-`): a usage error when stdin is a terminal (nothing was piped in, and waiting for
   * Ctrl-D would look like a hang), when another option read it already, or when it cannot be read.
   */
  async readStdin(flag: string): Promise<string> {
    if (this.stdinIsTerminal()) throw usage(`${flag} reads stdin, which is a terminal: pipe the input in, or name a file`);
    if (this.stdinReader !== undefined) throw usage(`${flag} reads stdin, which ${this.stdinReader} read already: give one of them a file`);
    this.stdinReader = flag;
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of this.io.stdin ?? process.stdin)
        chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    } catch (err) {
      throw usage(`${flag}: cannot read stdin (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  config(): LoadedConfig {
    this.loaded ??= loadConfig(this.io.env, this.options.config);
    return this.loaded;
  }

  /** The active profile (`--profile`, `NAP_PROFILE`, `NAP_URL`, the default profile). */
  profile(): Profile {
    return resolveProfile(this.config(), this.options.profile, this.io.env);
  }

  /** Whether {@link spin} shows a spinner. */
  spins(): boolean {
    const env = this.io.env;
    return (
      this.io.stderr.isTTY === true &&
      this.stderrColors.isColorSupported &&
      env.TERM !== 'dumb' &&
      !this.options.debug &&
      (env.CI === undefined || env.CI === '' || env.CI === 'false')
    );
  }

  /** A client of the active profile, or of a profile named by `copy --from/--to` (`flag`, for messages). */
  client(name?: string, flag?: string): Client {
    const profile = name === undefined ? this.profile() : namedProfile(this.config(), name, this.io.env, {}, flag);
    const key = name ?? '';
    let client = this.clients.get(key);
    if (client === undefined) {
      this.tokenCache ??= createTokenCache(tokenCacheFile(this.io.env), Date.now, (message) => this.note(`nap: ${message}`));
      const debug = { enabled: this.options.debug, log: (line: string) => this.note(this.stderrColors.dim(line)) };
      client = new Client(profile, debug, this.tokenCache);
      this.clients.set(key, client);
    }
    return client;
  }

  /**
   * A spinner on stderr while `work` runs, only on a terminal that shows colours (not with
   * `--no-color`, `NO_COLOR` or `TERM=dumb`, where a spinner's frames would stay in the output),
   * and not with `--debug` or in CI.
   */
  async spin<T>(text: string, work: () => Promise<T>): Promise<T> {
    if (!this.spins()) return work();
    // the spinner's own signal handler would end the process before a command's (a replace saying
    // where its copy is): on Ctrl-C or SIGTERM it only stops, and the process ends as the signal
    // ends it unless a command's handler does, after saying what it must
    const spinner = loadSpinner()({ text: terminalText(text, false), stream: this.io.stderr, handleSignals: false }).start();
    const onSignal = (signal: NodeJS.Signals): void => {
      spinner.stop();
      if (process.listenerCount(signal) === 0) process.exit(signal === 'SIGINT' ? EXIT.INTERRUPTED : EXIT.TERMINATED);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      return await work();
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      spinner.stop();
    }
  }
}
