import type { Colors } from 'picocolors/types';
import { UNPRINTABLE_NAME_CHARACTERS } from '@nap/contracts/dist/name-characters';
import { usage } from '../errors';
import { loadTable, loadYaml } from '../lazy';
import { escapeUnprintable, markStyles, unmarkStyles } from './terminal';

export const OUTPUT_FORMATS = ['human', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function parseOutputFormat(value: string): OutputFormat {
  const v = value.toLowerCase();
  if ((OUTPUT_FORMATS as readonly string[]).includes(v)) return v as OutputFormat;
  throw usage(`-o ${value}: the output format is one of ${OUTPUT_FORMATS.join(', ')}`);
}

/**
 * The document as JSON or YAML, for `-o json|yaml`: exactly what the API gave. For a `terminal`,
 * YAML double-quotes each string (value or key) holding a character the terminal writer escapes,
 * so that its escape (`\u202e`) is YAML's own there (JSON needs nothing: its strings take `\uHHHH`).
 */
export function serialize(value: unknown, format: 'json' | 'yaml', opts: { terminal?: boolean } = {}): string {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  const YAML = loadYaml();
  if (opts.terminal !== true) return YAML.stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
  const doc = new YAML.Document(value, { aliasDuplicateObjects: false });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && UNPRINTABLE.test(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0 });
}

/** A character the terminal writer escapes (line feeds and tabs are layout, which block scalars keep). */
const UNPRINTABLE = new RegExp(`(?![\\n\\t])[${UNPRINTABLE_NAME_CHARACTERS}]`, 'u');

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  color?: (text: string, row: T) => string;
  /** Free text (a description): the only kind of column cut to the terminal's width. */
  prose?: boolean;
}

/**
 * A plain value as one table cell: lines joined with a space, and every other control,
 * line-separator or bidirectional formatting character escaped (`\x1b`): a name stored with one
 * cannot act on the terminal, and the cell keeps its width.
 */
export function cell(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  if (Array.isArray(value)) return value.map(cell).join(',');
  if (typeof value === 'object') return escapeUnprintable(JSON.stringify(value));
  return escapeUnprintable(String(value).replace(/\s*\n\s*/g, ' '));
}

/** The narrowest a column is cut to when a table is wider than the terminal, in columns. */
const MIN_CUT_WIDTH = 12;

/**
 * Rows as an aligned, borderless table (kubectl's look); colour never changes the alignment.
 * With `width` (the terminal's, given only when stdout is one), a table wider than it has its
 * widest free-text columns ({@link Column.prose}: descriptions) cut, each cut cell ending in `…`,
 * down to {@link MIN_CUT_WIDTH} columns: a long description no longer folds every row over
 * several lines. Ids, names and states are never cut (people copy them into the next command), and
 * without `width` (a pipe, a file) every value is whole.
 */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[], c: Colors, width?: number): string {
  const Table = loadTable();
  const t = new Table({
    // the renderer measures nap's styles as real SGR sequences; every ESC of a cell is escaped already
    head: columns.map((col) => unmarkStyles(c.bold(col.header))),
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [] },
  });
  const texts = rows.map((row) => columns.map((col) => cell(col.value(row))));
  const limits = columnLimits(
    columns.map((col) => ({ header: col.header, prose: col.prose === true })),
    texts,
    width,
  );
  rows.forEach((row, r) => {
    t.push(
      columns.map((col, i) => {
        const text = cut(texts[r]![i]!, limits[i]!);
        return col.color === undefined ? text : unmarkStyles(col.color(text, row));
      }),
    );
  });
  return `${markStyles(t.toString())
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}

/** East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt), which a terminal shows in two columns. */
const WIDE =
  /[\u1100-\u115F\u2329\u232A\u2E80-\u303E\u3041-\u3247\u3250-\u4DBF\u4E00-\uA4C6\uA960-\uA97C\uAC00-\uD7A3\uF900-\uFAFF\uFE10-\uFE19\uFE30-\uFE6B\uFF01-\uFF60\uFFE0-\uFFE6\u{1B000}-\u{1B001}\u{1F200}-\u{1F251}\u{20000}-\u{3FFFD}]/u;
/** An emoji shown as a picture (two columns): one of emoji presentation, or any pictograph asked for as one (U+FE0F), or a flag. */
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\p{Regional_Indicator}{2}/u;
/** What takes no column of its own: combining marks (variation selectors among them), zero-width spaces and joiners. */
const ZERO_WIDTH = /^(?:[\p{Mn}\p{Me}\u200B\u200C\u2060]|\u200D)+$/u;

let graphemes: Intl.Segmenter | undefined;

/** The columns one grapheme (what a person sees as one character) takes on a terminal: 0, 1 or 2. */
function graphemeWidth(grapheme: string): number {
  if (ZERO_WIDTH.test(grapheme)) return 0;
  if (EMOJI.test(grapheme) || WIDE.test(String.fromCodePoint(grapheme.codePointAt(0)!))) return 2;
  return 1;
}

/** The graphemes of `text`, each with the columns it takes. */
function* cells(text: string): Generator<[string, number]> {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of graphemes.segment(text)) yield [segment, graphemeWidth(segment)];
}

/**
 * The columns `text` takes on a terminal, as the table renderer measures them: two for each CJK
 * character and emoji, none for a combining mark (a cell's text holds no colour yet). Counting code
 * points instead made a table of Japanese descriptions twice as wide as the terminal it was cut for.
 */
export function displayWidth(text: string): number {
  // most cells are ASCII: one column a character
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let n = 0;
  for (const [, width] of cells(text)) n += width;
  return n;
}

const widthOf = displayWidth;

/**
 * The widest each column may be so that a line fits in `width` (two spaces between columns): the
 * widest free-text column is narrowed first, one character at a time, never below
 * {@link MIN_CUT_WIDTH} nor below its header. Infinity for a column that is not cut.
 */
export function columnLimits(
  columns: readonly { header: string; prose: boolean }[],
  texts: readonly (readonly string[])[],
  width?: number,
): number[] {
  const widths = columns.map((col, i) => Math.max(widthOf(col.header), ...texts.map((row) => widthOf(row[i]!))));
  const limits = [...widths];
  if (width !== undefined && Number.isFinite(width) && width > 0) {
    const floors = columns.map((col) => (col.prose ? Math.max(MIN_CUT_WIDTH, widthOf(col.header)) : Infinity));
    let total = limits.reduce((a, b) => a + b, 0) + 2 * Math.max(0, columns.length - 1);
    while (total > width) {
      let widest = -1;
      for (let i = 0; i < limits.length; i++) if (limits[i]! > floors[i]! && (widest < 0 || limits[i]! > limits[widest]!)) widest = i;
      if (widest < 0) break;
      limits[widest]! -= 1;
      total -= 1;
    }
  }
  return limits.map((limit, i) => (limit >= widths[i]! ? Infinity : limit));
}

/**
 * `text` cut to `limit` terminal columns, its last one `…` when anything was cut (never a text
 * already coloured); a wide character that would straddle the limit is left out whole, and a
 * grapheme (an accented letter, a flag, a family emoji) is never split.
 */
function cut(text: string, limit: number): string {
  if (widthOf(text) <= limit || text.includes('\u001b')) return text;
  let kept = '';
  let used = 0;
  for (const [grapheme, width] of cells(text)) {
    if (used + width > limit - 1) break;
    kept += grapheme;
    used += width;
  }
  return `${kept}…`;
}

/** A size for people: `512 B`, `3.4 KiB`, `12 MiB`, `1.5 GiB` (powers of 1024). */
export function bytesText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A status word in its colour: green done, red failed, yellow under way, grey stopped. */
export function statusColor(status: string, c: Colors): string {
  switch (status) {
    case 'complete':
    case 'success':
    case 'RUNNING':
    case 'running ok':
      return c.green(status);
    case 'error':
    case 'failure':
    case 'FAILED':
    case 'DEAD':
      return c.red(status);
    case 'running':
    case 'incomplete':
    case 'paused':
    case 'STARTING':
    case 'STOPPING':
      return c.yellow(status);
    case 'canceled':
    case 'STOPPED':
      return c.dim(status);
    default:
      return status;
  }
}

/** A document for people: `key: value` lines, nested members indented (YAML without the quoting noise). */
export function describeDocument(doc: unknown, c: Colors): string {
  const YAML = loadYaml();
  const text = YAML.stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
  return text.replace(/^(\s*(?:- )?)([^\s:#][^:\n]*?):(?=\s|$)/gm, (_, indent: string, key: string) => `${indent}${c.bold(key)}:`);
}
