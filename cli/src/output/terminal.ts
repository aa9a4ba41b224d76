/**
 * Platform text (names, descriptions, error messages) made safe to show: a terminal acts on control
 * characters (ESC sequences move the cursor, clear the screen, set the window title or the
 * clipboard; CR rewrites a line) and bidirectional overrides make one name look like another. The
 * platform refuses them in new names, but data stored before may still hold them, so `nap` shows
 * each as an escape (`\x1b`, `\u202e`) instead. The set is the one names refuse
 * (`UNPRINTABLE_NAME_CHARACTERS` of the contracts, which a test keeps in step): C0 controls,
 * DEL and C1, U+2028/U+2029 and the bidirectional embeddings, overrides and isolates.
 * JSON and YAML output (`-o json|yaml`) is never passed through here: it stays exact.
 */

// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const UNPRINTABLE = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/gu;

/**
 * In a line: the same, but line feed and tab are layout, and an SGR sequence (`ESC [ … m`, a colour
 * or bold) is what `nap` itself writes when colours are on.
 */
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const UNPRINTABLE_IN_LINES = /(\u001b\[[0-9;]*m)|[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/gu;

/**
 * The escape of one character: `\xHH` below U+0020 (`\x1b`, `\x00`, `\x0d`), `\uHHHH` from U+007F
 * on (`\u009b`, `\u202e`), so that text that is JSON stays JSON with the same value.
 */
function escaped(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control, line-separator and bidirectional formatting character escaped: a table cell, a value on one line. */
export function escapeUnprintable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/**
 * Lines for a terminal or a log (`nap`'s own messages with names and platform text in them, a
 * device's output): every character {@link escapeUnprintable} escapes, except line feeds (CRLF
 * taken as one) and tabs, and, when `colors` is on for the stream, the colour sequences `nap` wrote
 * itself.
 */
export function terminalText(text: string, colors: boolean): string {
  // a device's CRLF line ends are line ends (a lone CR, which rewrites the line, is escaped)
  return text.replace(/\r\n/g, '\n').replace(UNPRINTABLE_IN_LINES, (match: string, sgr: string | undefined) => {
    if (sgr === undefined) return escaped(match);
    return colors ? match : `${escaped('\u001b')}${match.slice(1)}`;
  });
}
