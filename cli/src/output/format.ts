import type { Colors } from 'picocolors/types';
import { usage } from '../errors';
import { loadTable, loadYaml } from '../lazy';

export const OUTPUT_FORMATS = ['human', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function parseOutputFormat(value: string): OutputFormat {
  const v = value.toLowerCase();
  if ((OUTPUT_FORMATS as readonly string[]).includes(v)) return v as OutputFormat;
  throw usage(`-o ${value}: the output format is one of ${OUTPUT_FORMATS.join(', ')}`);
}

/** The document as JSON or YAML, for `-o json|yaml`: exactly what the API gave. */
export function serialize(value: unknown, format: 'json' | 'yaml'): string {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  const YAML = loadYaml();
  return YAML.stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  color?: (text: string, row: T) => string;
}

/** A plain value as one table cell. */
export function cell(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  if (Array.isArray(value)) return value.map(cell).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value).replace(/\s*\n\s*/g, ' ');
}

/** Rows as an aligned, borderless table (kubectl's look); colour never changes the alignment. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[], c: Colors): string {
  const Table = loadTable();
  const t = new Table({
    head: columns.map((col) => c.bold(col.header)),
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
  for (const row of rows) {
    t.push(
      columns.map((col) => {
        const text = cell(col.value(row));
        return col.color === undefined ? text : col.color(text, row);
      }),
    );
  }
  return `${t
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
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
