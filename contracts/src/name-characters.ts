/**
 * The characters a name may not hold, and how text holding them is shown. Pure: no imports, so that
 * `nap` carries it too (it escapes them on a terminal) and the two never disagree.
 */

/**
 * The characters a name people choose may not hold: C0 control characters (NUL, tab, line feed,
 * carriage return, ESC, …), DEL and the C1 controls (U+0000–U+001F, U+007F–U+009F), the line and
 * paragraph separators U+2028 and U+2029, and the bidirectional embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069). Printed raw, they rewrite a terminal (ESC sequences), forge lines
 * in logs and audit exports, or make one name look like another; every other character (accents,
 * CJK, emoji) is allowed. The text of a character class of a JSON Schema `pattern` (ECMA-262, as Ajv
 * compiles it with the `u` flag).
 */
export const UNPRINTABLE_NAME_CHARACTERS = '\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069';

const UNPRINTABLE_ALL = new RegExp(`[${UNPRINTABLE_NAME_CHARACTERS}]`, 'gu');

/** The escape of one character: `\\xHH` below U+0020, `\\uHHHH` from U+007F on (text that is JSON stays JSON with the same value). */
export function escapedCharacter(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with each character a name may not hold written as an escape: `\xHH` below U+0020
 * (`\x1b`, `\x00`), `\uHHHH` from U+007F on (`\u009b`, `\u202e`),
 * for messages and output that show a name stored before the rule, or given to be refused: the
 * reader sees what is there, and the terminal or log does not act on it. Printable text is answered
 * as it is.
 */
export function escapeUnprintable(text: string): string {
  return text.replace(UNPRINTABLE_ALL, escapedCharacter);
}
