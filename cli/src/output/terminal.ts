import { UNPRINTABLE_NAME_CHARACTERS, escapeUnprintable, escapedCharacter } from '@nap/contracts/dist/name-characters';

/**
 * Platform text (names, descriptions, error messages) made safe to show: a terminal acts on control
 * characters (ESC sequences move the cursor, clear the screen, set the window title or the
 * clipboard; CR rewrites a line) and bidirectional overrides make one name look like another. The
 * platform refuses them in new names, but data stored before may still hold them, so `nap` shows
 * each as an escape (`\x1b`, `\u202e`) instead: the very set names refuse, and the same escapes
 * (`name-characters` of the contracts, which carries no imports): C0 controls, DEL and C1,
 * U+2028/U+2029 and the bidirectional embeddings, overrides and isolates.
 * JSON and YAML output (`-o json|yaml`) is never passed through here: it stays exact.
 */

/**
 * In a line: the characters names may not hold, but line feed and tab are layout, and an SGR sequence
 * (`ESC [ … m`, a colour or bold) is what `nap` itself writes when colours are on.
 */
const UNPRINTABLE_IN_LINES = new RegExp(`(\u001b\\[[0-9;]*m)|(?![\\n\\t])[${UNPRINTABLE_NAME_CHARACTERS}]`, 'gu');

/** `text` with every control, line-separator and bidirectional formatting character escaped: a table cell, a value on one line. */
export { escapeUnprintable };

/**
 * Lines for a terminal or a log (`nap`'s own messages with names and platform text in them, a
 * device's output): every character {@link escapeUnprintable} escapes, except line feeds (CRLF
 * taken as one) and tabs, and, when `colors` is on for the stream, the colour sequences `nap` wrote
 * itself.
 */
export function terminalText(text: string, colors: boolean): string {
  // a device's CRLF line ends are line ends (a lone CR, which rewrites the line, is escaped)
  return text.replace(/\r\n/g, '\n').replace(UNPRINTABLE_IN_LINES, (match: string, sgr: string | undefined) => {
    if (sgr === undefined) return escapedCharacter(match);
    return colors ? match : `${escapedCharacter('\u001b')}${match.slice(1)}`;
  });
}
