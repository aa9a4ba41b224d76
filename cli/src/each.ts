import type { Context } from './context';
import { CliError, EXIT } from './errors';

/** What a command acting on several things calls them, for its messages. */
export interface EachWords {
  /** The things, plural: `workflows`, `jobs`. */
  plural: string;
  /** What was not done to a failed one: `deleted`, `paused`. */
  done: string;
  /** What one item is, for "the 2 names after it not tried": `name`, `id`, `document`. */
  item: string;
}

/** A failure that ends a command at once: the credentials refused, or the platform unreachable. */
export function stopsAll(err: CliError | undefined): boolean {
  return err !== undefined && (err.exitCode === EXIT.AUTH || err.exitCode === EXIT.UNREACHABLE);
}

/**
 * The rule of every command that acts on several things (names, ids, the documents of a file):
 * each is tried even when another fails. A failure is one line on stderr (`nap: …`) as it happens,
 * and the command ends with `N of M <things> not <done>` and the exit code of the first failure;
 * with one thing, its failure is the message. A refusal of the credentials or an unreachable
 * platform stops at once (the things after it would fail the same way), saying how many were not
 * tried. `finish` runs before the command ends either way (to print what was done, for `-o json`).
 */
export async function eachItem<T>(
  ctx: Context,
  items: readonly T[],
  words: EachWords,
  act: (item: T) => Promise<void>,
  finish: () => void = () => undefined,
): Promise<void> {
  const failures: CliError[] = [];
  for (const [at, item] of items.entries()) {
    try {
      await act(item);
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      const left = items.length - at - 1;
      if (stopsAll(err)) {
        finish();
        throw left === 0
          ? err
          : new CliError(`${err.message}; the ${left === 1 ? words.item : `${left} ${words.item}s`} after it not tried`, err.exitCode, {
              cause: err,
            });
      }
      if (items.length === 1) {
        finish();
        throw err;
      }
      ctx.note(`nap: ${err.message}`);
      failures.push(err);
    }
  }
  finish();
  const first = failures[0];
  if (first !== undefined) throw new CliError(`${failures.length} of ${items.length} ${words.plural} not ${words.done}`, first.exitCode);
}
