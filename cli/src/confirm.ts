import { createInterface } from 'node:readline';
import type { Context } from './context';
import { CliError, EXIT, usage } from './errors';
import { terminalText } from './output/terminal';

/**
 * What a destructive command does before it acts: nothing with `--yes`; else, on a terminal, asks
 * `question [y/N]` on stderr and goes on only for y or yes (anything else, or Ctrl-D, stops it with
 * exit 1: `refused` says what was left alone); off a terminal (a script, a pipe) it refuses with exit
 * 4 and says to add `--yes`, since nobody is there to answer.
 */
export async function confirmOrStop(ctx: Context, opts: { yes?: boolean }, question: string, refused: string): Promise<void> {
  if (opts.yes === true) return;
  if (!ctx.stdinIsTerminal()) throw usage(`stdin is not a terminal, so nap cannot ask to confirm: add --yes (${refused})`);
  const rl = createInterface({ input: ctx.io.stdin ?? process.stdin, output: ctx.io.stderr, terminal: true });
  const answer = await new Promise<string | undefined>((resolve) => {
    let done = false;
    const end = (text: string | undefined): void => {
      if (done) return;
      done = true;
      resolve(text);
    };
    rl.on('SIGINT', () => {
      ctx.io.stderr.write('\n');
      end(undefined);
      rl.close();
      // readline took Ctrl-C from the terminal: nap sends it itself, and ends as any interrupted command
      process.kill(process.pid, 'SIGINT');
    });
    // Ctrl-D: no answer
    rl.on('close', () => {
      if (!done) ctx.io.stderr.write('\n');
      end(undefined);
    });
    // the question names what it acts on: shown as every line of nap is (`\x1b`, never raw)
    rl.question(terminalText(`${question} [y/N] `, false), end);
  });
  rl.close();
  if (answer === undefined || !/^\s*y(es)?\s*$/i.test(answer)) throw new CliError(`not confirmed: ${refused}`, EXIT.FAILED);
}
