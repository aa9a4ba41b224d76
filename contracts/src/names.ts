import { AppError } from './errors';
import type { ValidationProblem } from './errors';
import { UNPRINTABLE_NAME_CHARACTERS } from './name-characters';

export { UNPRINTABLE_NAME_CHARACTERS, escapeUnprintable } from './name-characters';

/**
 * The JSON Schema `pattern` of a name people choose (a project, workflow, automation, form, template,
 * transformation, trigger, device, link, group, …): none of {@link UNPRINTABLE_NAME_CHARACTERS}.
 * A string refused by it is described by {@link nameProblem}: the member, the character as U+XXXX
 * and its position.
 */
export const PRINTABLE_NAME_PATTERN = `^[^${UNPRINTABLE_NAME_CHARACTERS}]*$`;

const UNPRINTABLE = new RegExp(`[${UNPRINTABLE_NAME_CHARACTERS}]`, 'u');

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
 * `schema` (an object schema) with each of its members `members` a name people choose: the pattern
 * {@link PRINTABLE_NAME_PATTERN} added to the member's own schema, its other keywords (type,
 * minLength, description) kept, so that a request holding a character names may not hold is a 400
 * `VALIDATION_FAILED` naming the member and the character (as for {@link nameProblem}). A member
 * inside an object member is named by its path (`metadata.name`), one in the items of an array
 * member with `[]` (`components[].folder`). For the request schemas of
 * documents whose schema is shared with stored documents and answers (an adapter, a profile, a
 * prebuilt package): those keep no pattern, so that a name stored before the rule can still be
 * read. A copy; `schema` is left as it was. Throws at load when a member is not one of the
 * schema's, or has a pattern of its own already.
 */
export function withPrintableNames<T extends object>(schema: T, members: readonly string[]): T {
  type Node = { properties?: Record<string, Node>; items?: Node; pattern?: unknown };
  const printable = (leaf: Node, whole: string): Node => {
    if (leaf.pattern !== undefined && leaf.pattern !== PRINTABLE_NAME_PATTERN)
      throw new Error(`withPrintableNames: ${whole} has a pattern of its own`);
    return { ...leaf, pattern: PRINTABLE_NAME_PATTERN };
  };
  const mark = (node: Node, path: readonly string[], whole: string): Node => {
    const [segment = '', ...rest] = path;
    const many = segment.endsWith('[]');
    const key = many ? segment.slice(0, -2) : segment;
    const member = node.properties?.[key];
    const target = many ? member?.items : member;
    if (member === undefined || target === undefined) throw new Error(`withPrintableNames: the schema has no member ${whole}`);
    const changed = rest.length > 0 ? mark(target, rest, whole) : printable(target, whole);
    return { ...node, properties: { ...node.properties, [key]: many ? { ...member, items: changed } : changed } };
  };
  let out = schema as Node;
  for (const member of members) out = mark(out, member.split('.'), member);
  return out as T;
}

/**
 * Ids and names a document may not take where it is kept by them (a store's `_id`, a member of a
 * map or object keyed by id or name): the members every JavaScript object has. Kept as a key, such
 * an id reads or writes the object's prototype instead of a member (`__proto__`), or finds the
 * inherited function where no document is (`constructor`); refused on create, import and update.
 * Documents stored under one by an earlier release stay readable and deletable.
 */
export const RESERVED_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

const RESERVED: ReadonlySet<string> = new Set(RESERVED_KEYS);

/** True when `text` is one of {@link RESERVED_KEYS}, which an id or a name used as a key may not be. */
export function isReservedKey(text: string): boolean {
  return RESERVED.has(text);
}

/**
 * The problem of the id or name `value` at `member` (`body._id`) when it is one of
 * {@link RESERVED_KEYS}: `body._id "__proto__" is reserved; choose another id`. Undefined otherwise
 * (also when `value` is not a string: its type is the schema's to check).
 */
export function reservedKeyProblem(value: unknown, member: string, what = 'id'): ValidationProblem | undefined {
  if (typeof value !== 'string' || !RESERVED.has(value)) return undefined;
  return {
    member,
    message: `${member} "${value}" is reserved (${RESERVED_KEYS.join(', ')} name members every object has); choose another ${what}`,
    keyword: 'not',
  };
}

/**
 * Refuses an id or name given for a document kept by it when it is one of {@link RESERVED_KEYS}:
 * throws 400 `VALIDATION_FAILED` whose one detail names `member` and the value (see
 * {@link reservedKeyProblem}). `what` is the word the message closes on (`id`, `name`).
 */
export function checkNotReservedKey(value: unknown, member: string, what = 'id'): void {
  const problem = reservedKeyProblem(value, member, what);
  if (problem !== undefined) throw new AppError('VALIDATION_FAILED', problem.message, { details: [problem] });
}
