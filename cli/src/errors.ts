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
  /**
   * The platform could not be reached, or did not answer within the profile's timeout, or a proxy in
   * front of it answered 502, 503 or 504 for it.
   */
  UNREACHABLE: 6,
  /** Ctrl-C (SIGINT) ended the command: a job followed goes on, and nap said how to follow it again. */
  INTERRUPTED: 130,
  /** SIGTERM ended the command (a CI job canceled, `timeout`, `kill`): as Ctrl-C. */
  TERMINATED: 143,
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
  [
    EXIT.UNREACHABLE,
    "the platform is unreachable, did not answer within the profile's timeout, or a proxy in front of it answered 502, 503 or 504 for it",
  ],
  [EXIT.INTERRUPTED, 'interrupted by Ctrl-C: a job followed goes on (nap says how to follow it again), a replace says where its copy is'],
  [EXIT.TERMINATED, 'stopped by SIGTERM (a CI job canceled, timeout, kill): as Ctrl-C'],
];

/** An error meant for the user: its message is the one line printed, its code the exit code. */
export class CliError extends Error {
  /** The HTTP status of the platform's answer this error says, when it says one. */
  readonly status: number | undefined;

  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options);
    this.name = 'CliError';
    this.status = options?.status;
  }
}

/**
 * The platform did not answer (exit 6): not reached, no answer within the timeout, or a proxy in
 * front of it that cannot reach it. `reason` is the cause in a few words (`connection refused`),
 * for a line that goes on (a followed job that outlives a restart of the platform).
 */
export class UnreachableError extends CliError {
  /**
   * Whether the request may have reached the platform (and been done) though no answer came back:
   * false only when no connection was made (refused, no such host), true for a timeout, a
   * connection cut and a proxy's answer.
   */
  readonly mayHaveReached: boolean;

  constructor(
    message: string,
    readonly reason: string,
    options?: { cause?: unknown; mayHaveReached?: boolean },
  ) {
    super(message, EXIT.UNREACHABLE, options);
    this.name = 'UnreachableError';
    this.mayHaveReached = options?.mayHaveReached ?? true;
  }
}

/** A usage error (exit 4). */
export function usage(message: string): CliError {
  return new CliError(message, EXIT.USAGE);
}
