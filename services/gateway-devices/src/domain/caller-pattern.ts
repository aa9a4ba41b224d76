import { setFlagsFromString } from 'node:v8';
import { AppError } from '@nap/contracts';
import { errorMessage } from '@nap/util';

/**
 * Regular expressions a caller gives for a device session (netmiko's `expect_string`,
 * `error_pattern`, `terminator`, `bypass_commands`). They run in the service's event loop on every
 * chunk a device sends, on text the caller writes (a command's echo), so a pattern that backtracks
 * (`^(a+)+$` against 30 `a`s and a `b`) would stop every request of the process for minutes. They
 * run on V8's linear-time engine (the `l` flag): a pattern it cannot run (a backreference, a
 * lookaround, a counted repeat of more than a few characters, a Unicode class) is refused with 400
 * VALIDATION_FAILED naming the member, not run with backtracking.
 */

/** V8's flag for the linear-time engine (a name of its own: linters know no such flag). */
const LINEAR = 'l';

let linearEngine = false;

/** Turns on V8's `l` flag once (it changes nothing else); a Node whose V8 lacks it fails loudly. */
function ensureLinearEngine(): void {
  if (linearEngine) return;
  setFlagsFromString('--enable-experimental-regexp-engine');
  try {
    new RegExp('', LINEAR);
    linearEngine = true;
  } catch (err) {
    throw new Error(
      `This Node.js (${process.version}) has no linear-time regular expression engine (the V8 flag --enable-experimental-regexp-engine)`,
      {
        cause: err,
      },
    );
  }
}

/**
 * `source` compiled with `flags` on the linear-time engine. Throws 400 VALIDATION_FAILED naming
 * `member` for a pattern that is not a regular expression, or that needs backtracking.
 */
export function callerPattern(source: string, flags: string, member: string): RegExp {
  ensureLinearEngine();
  try {
    return new RegExp(source, `${flags}${LINEAR}`);
  } catch (err) {
    let valid = true;
    try {
      new RegExp(source, flags);
    } catch {
      valid = false;
    }
    const problem = valid
      ? 'needs backtracking (a backreference, a lookaround, or a counted repeat such as {80}), which device sessions do not run: write it without (-+ for -{80})'
      : `is not a regular expression (${errorMessage(err).replace(/^Invalid regular expression: /, '')})`;
    throw new AppError('VALIDATION_FAILED', `${member} "${source}" ${problem}`, { details: [{ member, message: problem }] });
  }
}
