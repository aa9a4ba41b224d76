import { EXIT } from './errors';

/**
 * The signals that end a run as Ctrl-C does, each with the exit code a shell gives a process it
 * ends (128 + the signal's number): SIGTERM is how a CI system cancels a job, and how `timeout`
 * and `kill` stop a command.
 */
const ENDING_SIGNALS = { SIGINT: EXIT.INTERRUPTED, SIGTERM: EXIT.TERMINATED } as const;
export type EndingSignal = keyof typeof ENDING_SIGNALS;

/** How a message says that a signal ended the run: `interrupted` (Ctrl-C), `stopped by SIGTERM`. */
export function endedBy(signal: EndingSignal): string {
  return signal === 'SIGINT' ? 'interrupted' : `stopped by ${signal}`;
}

/**
 * While a command is halfway through something a person must know about when it stops (a job it
 * follows goes on, a document deleted to be replaced has a copy), Ctrl-C and SIGTERM call `say`
 * with the signal, then end the process with its exit code. Answers the function that puts the
 * default back once that is over; the handlers are no I/O until a signal comes.
 */
export function whileInterruptible(say: (signal: EndingSignal) => void): () => void {
  const handlers = (Object.keys(ENDING_SIGNALS) as EndingSignal[]).map((signal) => {
    const handler = (): void => {
      say(signal);
      process.exit(ENDING_SIGNALS[signal]);
    };
    process.once(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}
