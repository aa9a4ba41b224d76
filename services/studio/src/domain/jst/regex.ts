import { errorMessage } from '@nap/util';
import { MethodError } from './errors';

/**
 * How JST steps run regular expressions. A user's pattern can backtrack for ever (`(a+)+$`), so the
 * engine reaches them only through a {@link RegexRunner}: the service gives it one backed by a worker
 * thread with a time limit (`clients/regex-worker.ts`); pure tests and the benchmark use the inline
 * runner of this module.
 */

/** One regular expression operation on one input text. */
export interface RegexOp {
  op: 'test' | 'exec' | 'match' | 'replace' | 'replaceAll' | 'search' | 'split';
  source: string;
  flags: string;
  input: string;
  /** `replace`, `replaceAll`: the replacement text (`$1`, `$&` work as in JavaScript). */
  replacement?: string;
  /** `split`: the largest number of pieces. */
  limit?: number;
}

export interface RegexRunner {
  /** Runs `op`; throws MethodError for a bad pattern, LimitError when it runs past the time limit. */
  run(op: RegexOp): unknown;
  close(): Promise<void>;
}

/**
 * Runs one operation. Self-contained on purpose: the worker receives its source text, so it may use
 * nothing from outside its own body. Answers JSON-able values only (match arrays become plain arrays).
 */
export function runRegexOp(op: RegexOp): unknown {
  const re = new RegExp(op.source, op.flags);
  const plain = (m: RegExpMatchArray | null): (string | null)[] | null =>
    m === null ? null : Array.from(m, (s) => (s === undefined ? null : s));
  switch (op.op) {
    case 'test':
      return re.test(op.input);
    case 'exec':
      return plain(re.exec(op.input));
    case 'match':
      return plain(op.input.match(re));
    case 'replace':
      return op.input.replace(re, op.replacement ?? 'undefined');
    case 'replaceAll':
      return op.input.replaceAll(re, op.replacement ?? 'undefined');
    case 'search':
      return op.input.search(re);
    case 'split':
      return op.input.split(re, op.limit);
    default:
      throw new Error(`Unknown regular expression operation ${String(op.op)}`);
  }
}

function patternError(err: unknown): MethodError {
  return new MethodError(errorMessage(err));
}

/** Runs operations in this thread, without a time limit: for pure tests and benchmarks. */
export function createInlineRegexRunner(): RegexRunner {
  return {
    run(op) {
      try {
        return runRegexOp(op);
      } catch (err) {
        throw patternError(err);
      }
    },
    close: () => Promise.resolve(),
  };
}
