import { stopsAll } from '../each';
import { CliError, EXIT } from '../errors';
import { endedBy, whileInterruptible } from '../interrupt';
import type { ApiRequest, ApiResponse, Client } from '../http/client';
import { platformMessage } from '../http/client';
import { terminalText } from '../output/terminal';
import type { Doc } from '../resources/documents';

/*
 * What updates in place share (`import --replace` of an automation whose triggers changed, of a
 * project): the copy of what is there written first, steps each with their undo, a refusal that
 * undoes the steps done, newest first, and says what could not be undone.
 */

/** The copies of documents about to be changed (importing.ts's Backups). */
export interface BackupStore {
  write(name: string, doc: Doc): string;
  remove(file: string): void;
}

/** How the update ended, as importing.ts's outcomes say it. */
export interface InPlaceOutcome {
  state: 'updated' | 'refused' | 'partial';
  answer?: unknown;
  stored?: Doc;
  /** What was done to the triggers, for people: `1 changed, 1 created`. */
  detail?: string;
  notes?: string[];
  error?: CliError;
  backup?: string;
}

/** One step done, and how to undo it. */
export interface Step {
  /** What the step did, for the message of an undo that fails: `trigger "x" (deleted)`. */
  what: string;
  undo: () => Promise<void>;
}

/** The error a refusal of a step means: 401 and 403 stop the command (exit 5) as everywhere; others exit 1, naming what was refused. */
export function refusal(client: Client, req: Pick<ApiRequest, 'method' | 'path'>, res: ApiResponse, what: string): CliError {
  if (res.status === 401 || res.status === 403) return client.failure(req, res);
  const { code, message } = platformMessage(res.body);
  return new CliError(`${client.url} refused ${what}: ${message} (${res.status}${code === undefined ? '' : ` ${code}`})`, EXIT.FAILED);
}

/** Sends a request, the platform's refusal thrown (naming `what`). */
export async function sent(client: Client, req: ApiRequest, what: string): Promise<ApiResponse> {
  const res = await client.send(req);
  if (res.status >= 400) throw refusal(client, req, res, what);
  return res;
}

/**
 * Before the first change of an update in place: the copy of what is there written (`backups`),
 * and Ctrl-C meanwhile said to leave that copy named (`nap import <singular> <copy> --replace`
 * makes it that again). `release` ends the watch for Ctrl-C; a copy that cannot be written refuses
 * the update before anything changed.
 */
export function guardInPlace(
  backups: BackupStore,
  name: string,
  kept: Doc,
  there: string,
  what: string,
  singular: string,
): { backup: string; release: () => void } | InPlaceOutcome {
  let backup: string;
  try {
    backup = backups.write(name, kept);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return { state: 'refused', error: new CliError(`no copy of ${there} can be written (${reason}), so it was not changed`, EXIT.FAILED) };
  }
  // Ctrl-C (or SIGTERM: a CI job canceled) halfway must not leave the copy unsaid
  const release = whileInterruptible((signal) =>
    process.stderr.write(
      terminalText(
        `\nnap: ${endedBy(signal)} while updating ${what} in place: it may be changed in part; its copy as it was is ${backup} (\`nap import ${singular} ${backup} --replace\` makes it that again)\n`,
        false,
      ),
    ),
  );
  return { backup, release };
}

/**
 * After a refused step of an update in place: every step done undone, newest first; what could not
 * be undone said, with the copy (`nap import <singular> <copy> --replace` makes it that again).
 */
export async function rollBack(
  failure: CliError,
  done: readonly Step[],
  backup: string,
  backups: BackupStore,
  there: string,
  singular: string,
): Promise<InPlaceOutcome> {
  // the platform unreachable: the step it did not answer may have been done, and is not undone
  const unknown = failure.exitCode === EXIT.UNREACHABLE;
  if (done.length === 0 && !unknown) {
    backups.remove(backup);
    return {
      state: 'refused',
      error: stopsAll(failure) ? failure : new CliError(`${failure.message}; ${there} was left as it was`, failure.exitCode),
    };
  }
  const notUndone: string[] = [];
  for (const step of [...done].reverse()) {
    try {
      await step.undo();
    } catch (err) {
      notUndone.push(`${step.what}: ${err instanceof CliError ? err.message : String(err)}`);
    }
  }
  const copy = `its copy as it was is ${backup} (\`nap import ${singular} ${backup} --replace\` makes it that again)`;
  if (unknown) {
    const undone =
      done.length === 0
        ? 'nothing else was changed'
        : notUndone.length === 0
          ? 'the steps before it were undone'
          : `undoing the steps before it failed too (${notUndone.join('; ')})`;
    return {
      state: 'partial',
      backup,
      error: new CliError(
        `${failure.message}; whether the step it cut short changed ${there} is not known, and ${undone}: ${copy}`,
        failure.exitCode,
      ),
    };
  }
  if (notUndone.length === 0) {
    backups.remove(backup);
    return {
      state: 'refused',
      error: new CliError(`${failure.message}; what had been changed of ${there} was put back as it was`, failure.exitCode),
    };
  }
  return {
    state: 'partial',
    backup,
    error: new CliError(
      `${failure.message}; ${there} was changed in part and could NOT all be put back (${notUndone.join('; ')}): ${copy}`,
      stopsAll(failure) ? failure.exitCode : EXIT.FAILED,
    ),
  };
}
