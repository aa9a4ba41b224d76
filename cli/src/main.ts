import type { Command } from 'commander';
import { Context } from './context';
import type { GlobalOptions, Io } from './context';
import { CliError, EXIT } from './errors';
import { parseOutputFormat } from './output/format';
import { terminalText } from './output/terminal';
import { buildProgram } from './program';

function globalOptions(cmd: Command): GlobalOptions {
  const o = cmd.optsWithGlobals<{ profile?: string; output?: string; debug?: boolean; config?: string; color?: boolean }>();
  return {
    ...(o.profile === undefined ? {} : { profile: o.profile }),
    ...(o.config === undefined ? {} : { config: o.config }),
    output: parseOutputFormat(o.output ?? 'human'),
    debug: o.debug === true,
    color: o.color !== false,
  };
}

function report(io: Io, err: unknown, debug: boolean): number {
  if (err instanceof CliError) {
    io.stderr.write(`nap: ${terminalText(err.message, false)}\n`);
    if (debug && err.cause !== undefined) io.stderr.write(`${terminalText(String((err.cause as Error).stack ?? err.cause), false)}\n`);
    return err.exitCode;
  }
  const commanderCode = (err as { code?: unknown }).code;
  if (typeof commanderCode === 'string' && commanderCode.startsWith('commander.')) {
    // commander printed its message (or the help) already; help asked for is 0, help shown for a
    // command group without its subcommand (`nap jobs`) is commander's 1: a usage error
    return (err as { exitCode?: unknown }).exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.stderr.write(`nap: unexpected error: ${terminalText(message, false)}${debug ? '' : ' (--debug shows where)'}\n`);
  if (debug && err instanceof Error) io.stderr.write(`${terminalText(err.stack ?? '', false)}\n`);
  return EXIT.FAILED;
}

/** Runs `nap` with `argv` (without node and the script) and answers the exit code. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const debug = argv.includes('--debug');
  const program = buildProgram(io, async (cmd, work) => {
    const ctx = new Context(globalOptions(cmd), io);
    await work(ctx);
  });
  if (argv.length === 0) {
    io.stderr.write(program.helpInformation());
    return EXIT.USAGE;
  }
  // `nap help WORD`: commander shows the main help for a word that is no command; say so, exit 4
  const [first, second] = argv;
  if (first === 'help' && second !== undefined && !second.startsWith('-') && !program.commands.some((c) => c.name() === second)) {
    io.stderr.write(`nap: unknown command "${second}"; the commands: ${program.commands.map((c) => c.name()).join(', ')}\n`);
    return EXIT.USAGE;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (err) {
    return report(io, err, debug);
  }
}

/** The process entry: `bin/nap.js` calls it. */
export function run(): void {
  const io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env };
  // a closed pipe (`nap get workflows | head`) is not an error
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  // a closed stderr (`2>&1 | head -1`) loses the notes, not the command: it ends with its own exit code
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  void main(process.argv.slice(2), io).then((code) => {
    process.exitCode = code;
  });
}

if (require.main === module) run();
