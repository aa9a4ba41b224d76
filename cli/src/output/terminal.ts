import { randomInt } from 'node:crypto';
import { UNPRINTABLE_NAME_CHARACTERS, escapeUnprintable, escapedCharacter } from '@nap/contracts/dist/name-characters';

/**
 * Platform text (names, descriptions, error messages) made safe to show: a terminal acts on control
 * characters (ESC sequences move the cursor, clear the screen, set the window title or the
 * clipboard; CR rewrites a line) and bidirectional overrides make one name look like another. The
 * platform refuses them in new names, but data stored before may still hold them, so `nap` shows
 * each as an escape (`\x1b`, `\u202e`) instead: the very set names refuse, and the same escapes
 * (`name-characters` of the contracts, which carries no imports): C0 controls, DEL and C1,
 * U+2028/U+2029 and the bidirectional embeddings, overrides and isolates.
 *
 * One rule, applied where text leaves `nap` ({@link terminalText}, which the context's writers
 * call): every such character is escaped, whoever put it in the text. The colours `nap` writes
 * itself survive because they are not written as ESC at all while a line is built: its styles
 * ({@link styleSequence}) stand for ESC with a mark that is random for each process, which text
 * from the platform cannot hold (it never sees it), and only the writer turns the mark into ESC.
 */

const ESC = '\u001b';

let mark: string | undefined;

/**
 * The mark that stands for ESC in the styles `nap` writes: eight characters of Unicode's private
 * use area (U+E000–U+EFFF, about 96 bits), drawn once per process.
 */
function styleMark(): string {
  mark ??= Array.from({ length: 8 }, () => String.fromCodePoint(0xe000 + randomInt(0x1000))).join('');
  return mark;
}

/** An SGR sequence of `nap`'s own (`ESC [ 31 m`) as a line being built holds it: with the mark for ESC. */
export function styleSequence(sgr: string): string {
  return sgr.startsWith(ESC) ? `${styleMark()}${sgr.slice(1)}` : sgr;
}

/**
 * `text` with `nap`'s styles as real SGR sequences, for a library that measures widths and knows
 * them (the table renderer); {@link markStyles} turns them back. Only for text whose every other
 * ESC is escaped already (table cells).
 */
export function unmarkStyles(text: string): string {
  return text.split(styleMark()).join(ESC);
}

/** The SGR sequences of `text` marked as `nap`'s own: only for text built of escaped cells and `nap`'s styles ({@link unmarkStyles}). */
export function markStyles(text: string): string {
  return text.replace(SGR_ESC, styleMark());
}

/** The ESC that starts an SGR sequence. */
const SGR_ESC = new RegExp(`${ESC}(?=\\[[0-9;]*m)`, 'g');

let inLines: RegExp | undefined;

/**
 * In a line: `nap`'s styles, and the characters names may not hold, but line feed and tab, which
 * are layout.
 */
function unprintableInLines(): RegExp {
  inLines ??= new RegExp(`(${styleMark()}\\[[0-9;]*m)|(?![\\n\\t])[${UNPRINTABLE_NAME_CHARACTERS}]`, 'gu');
  return inLines;
}

/** `text` with every control, line-separator and bidirectional formatting character escaped: a table cell, a value on one line. */
export { escapeUnprintable };

/**
 * Text as it is written to a terminal, a pipe or a log (`nap`'s messages with names and platform
 * text in them, a device's output, a document shown on a terminal): every character
 * {@link escapeUnprintable} escapes, colour sequences and all, except line feeds (CRLF taken as
 * one) and tabs; `nap`'s own styles become SGR sequences when `colors` is on for the stream, and
 * are dropped when it is off. JSON stays JSON with the same value: outside its strings it holds
 * none of those characters, and inside them `\uHHHH` is its own escape.
 */
export function terminalText(text: string, colors: boolean): string {
  // a device's CRLF line ends are line ends (a lone CR, which rewrites the line, is escaped)
  return text.replace(/\r\n/g, '\n').replace(unprintableInLines(), (match: string, style: string | undefined) => {
    if (style === undefined) return escapedCharacter(match);
    return colors ? `${ESC}${style.slice(styleMark().length)}` : '';
  });
}
