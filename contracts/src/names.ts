import { AppError } from './errors';
import type { ValidationProblem } from './errors';

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

/**
 * The JSON Schema `pattern` of a name people choose (a project, workflow, automation, form, template,
 * transformation, trigger, device, link, group, …): none of {@link UNPRINTABLE_NAME_CHARACTERS}.
 * A string refused by it is described by {@link nameProblem}: the member, the character as U+XXXX
 * and its position.
 */
export const PRINTABLE_NAME_PATTERN = `^[^${UNPRINTABLE_NAME_CHARACTERS}]*$`;

const UNPRINTABLE = new RegExp(`[${UNPRINTABLE_NAME_CHARACTERS}]`, 'u');
const UNPRINTABLE_ALL = new RegExp(`[${UNPRINTABLE_NAME_CHARACTERS}]`, 'gu');

/** The first character of `text` a name may not hold: the character, its code point and its position (1-based, in characters). */
export interface UnprintableCharacter {
  character: string;
  /** `U+001B`. */
  codePoint: string;
  /** 1 for the first character of the text (code points, so an emoji before it counts once). */
  position: number;
  /** What it is, for messages: `control character`, `line separator`, `bidirectional formatting character`. */
  kind: string;
}

function codePointOf(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

function kindOf(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  if (code === 0x2028 || code === 0x2029) return 'line separator';
  if (code >= 0x202a) return 'bidirectional formatting character';
  return 'control character';
}

/** The first character of `text` that a name may not hold ({@link UNPRINTABLE_NAME_CHARACTERS}); undefined when there is none. */
export function unprintableIn(text: string): UnprintableCharacter | undefined {
  const found = UNPRINTABLE.exec(text);
  if (found === null) return undefined;
  const character = found[0];
  return { character, codePoint: codePointOf(character), position: [...text.slice(0, found.index)].length + 1, kind: kindOf(character) };
}

/** True when `text` holds none of the characters a name may not hold. */
export function isPrintableName(text: string): boolean {
  return !UNPRINTABLE.test(text);
}

/**
 * The problem of the name `text` at `member` (`body.automation.name`), naming the character it may
 * not hold as U+XXXX and where: `body.automation.name contains the control character U+001B at
 * position 4; a name is one line of printable text`. Undefined when the name is printable.
 */
export function nameProblem(text: string, member: string): ValidationProblem | undefined {
  const found = unprintableIn(text);
  if (found === undefined) return undefined;
  return {
    member,
    message: `${member} contains the ${found.kind} ${found.codePoint} at position ${found.position}; a name is one line of printable text`,
    keyword: 'pattern',
  };
}

/**
 * Refuses a name that holds a character names may not hold ({@link UNPRINTABLE_NAME_CHARACTERS}):
 * throws 400 `VALIDATION_FAILED` whose one detail names `member` and the character (see
 * {@link nameProblem}). For names taken where no catalog schema checks them (documents inside an
 * import, requests between services).
 */
export function checkPrintableName(text: string, member: string): void {
  const problem = nameProblem(text, member);
  if (problem !== undefined) throw new AppError('VALIDATION_FAILED', problem.message, { details: [problem] });
}

/**
 * `text` with each character a name may not hold written as an escape: `\xHH` below U+0020
 * (`\x1b`, `\x00`), `\uHHHH` from U+007F on (`\u009b`, `\u202e`),
 * for messages and output that show a name stored before the rule, or given to be refused: the
 * reader sees what is there, and the terminal or log does not act on it. Printable text is answered
 * as it is.
 */
export function escapeUnprintable(text: string): string {
  return text.replace(UNPRINTABLE_ALL, (character) => {
    const code = character.codePointAt(0) ?? 0;
    return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
