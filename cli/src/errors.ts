/**
 * Exit codes of `nap` and the one error type that carries them. Every failure ends as one line on
 * stderr and one of these codes; `--debug` adds the stack.
 */
export const EXIT = {
  /** The command did what it was asked; `run --wait`: the job completed. */
  OK: 0,
  /** The platform refused the request (a 4xx or 5xx other than the ones below), or the job ended in error. */
  FAILED: 1,
  /** The job was canceled. */
  CANCELED: 2,
  /** The job was still running when `--timeout` passed. */
  STILL_RUNNING: 3,
  /** A usage error: an unknown command or flag, a bad value, a verb the platform has no route for. */
  USAGE: 4,
  /** The platform refused the credentials (401) or their roles (403). */
  AUTH: 5,
  /** The platform could not be reached, or did not answer within the profile's timeout. */
  UNREACHABLE: 6,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What each exit code means, for the generated reference and `nap --help`. */
export const EXIT_MEANINGS: readonly (readonly [ExitCode, string])[] = [
  [EXIT.OK, 'success; for `run`/`jobs watch` with `--wait`/`--follow`: the job completed'],
  [EXIT.FAILED, 'the job ended in error, or the platform refused the request (its message is printed)'],
  [EXIT.CANCELED, 'the job was canceled'],
  [EXIT.STILL_RUNNING, 'the job was still running when `--timeout` passed'],
  [EXIT.USAGE, 'usage error: unknown command, flag or resource, bad value, missing profile, or a verb the platform has no route for'],
  [
    EXIT.AUTH,
    'authentication refused: wrong credentials, an account waiting after too many failed logins, an expired `NAP_TOKEN`, or roles that do not allow the call',
  ],
  [EXIT.UNREACHABLE, "the platform is unreachable or did not answer within the profile's timeout"],
];

/** An error meant for the user: its message is the one line printed, its code the exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** A usage error (exit 4). */
export function usage(message: string): CliError {
  return new CliError(message, EXIT.USAGE);
}
