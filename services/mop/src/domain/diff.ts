import { diffArrays, formatPatch } from 'diff';
import type { StructuredPatchHunk } from 'diff';

/**
 * Line diffs of configurations and command outputs. The search for the shortest edit (jsdiff's
 * Myers) costs time in proportion to the lines times the edits, and more, so two texts that share
 * few lines (two device outputs that differ everywhere) would take minutes: lines that only one text
 * has are set aside first, since they can only be removed or added, and the search runs over the
 * lines both have. What is left is bounded by a time limit; past it the diff gives up rather than
 * answer late. The service runs these functions in a worker thread (`engine/diff-pool.ts`), so
 * that even a diff that runs to its limit never holds the event loop.
 */

/** One part of a line diff. */
export interface DiffPart {
  type: 'unchanged' | 'added' | 'removed';
  /** The lines of the part, each newline-terminated except perhaps the last of a text. */
  value: string;
  count: number;
}

/** A line diff of two configurations and its unified text. */
export interface ConfigDiff {
  diff: DiffPart[];
  added: number;
  removed: number;
  unified: string;
}

/** Two texts to diff. */
export interface DiffInput {
  /** Before. */
  a: string;
  /** After. */
  b: string;
  /** The names the unified text gives the two texts; default value_a and value_b. */
  names?: { a?: string; b?: string };
  /** What the two texts are, for a message that says which diff gave up: `value_a and value_b`. */
  label?: string;
}

/** The diffs of a batch, in order, or which one gave up at the time limit. */
export type DiffBatchOutcome = { ok: true; diffs: ConfigDiff[] } | { ok: false; index: number };

/** Lines of context around each change of the unified text. */
const CONTEXT_LINES = 3;

/**
 * The lines of a text as jsdiff's `diffLines` splits them: each with its line break (`\n` or
 * `\r\n`), the last without one when the text does not end with a break.
 */
export function splitLines(text: string): string[] {
  const parts = text.split(/(\n|\r\n)/);
  if (parts[parts.length - 1] === '') parts.pop();
  const lines: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (i % 2 === 1) lines[lines.length - 1] += part;
    else lines.push(part);
  }
  return lines.filter((line) => line !== '');
}

/** A run of lines of one kind: `from`..`to` (exclusive) of text a (removed, unchanged) or b (added). */
interface Run {
  type: DiffPart['type'];
  from: number;
  to: number;
}

/**
 * The shortest edit from `a` to `b`, as runs of lines; undefined when the search ran past `timeoutMs`.
 * Removals come before additions between two unchanged lines.
 */
function lineRuns(a: readonly string[], b: readonly string[], timeoutMs: number): Run[] | undefined {
  const ids = new Map<string, number>();
  const idOf = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return id;
  };
  const idsA = a.map(idOf);
  const idsB = b.map(idOf);
  const inA = new Set(idsA);
  const inB = new Set(idsB);
  // a line that only one text has is never part of the longest common subsequence: set aside, the
  // search runs over fewer lines and still finds a shortest edit
  const keptA = idsA.flatMap((id, i) => (inB.has(id) ? [i] : []));
  const keptB = idsB.flatMap((id, j) => (inA.has(id) ? [j] : []));
  const changes = diffArrays(
    keptA.map((i) => idsA[i] as number),
    keptB.map((j) => idsB[j] as number),
    { timeout: Math.max(0, timeoutMs) },
  );
  if (changes === undefined) return undefined;

  const runs: Run[] = [];
  const push = (type: Run['type'], from: number, to: number): void => {
    if (to <= from) return;
    const last = runs[runs.length - 1];
    if (last !== undefined && last.type === type && last.to === from) last.to = to;
    else runs.push({ type, from, to });
  };
  let nextA = 0;
  let nextB = 0;
  /** Lines before the matched pair (matchA, matchB) are removed from a and added from b; the pair is unchanged. */
  const upTo = (matchA: number, matchB: number): void => {
    push('removed', nextA, matchA);
    push('added', nextB, matchB);
    nextA = matchA;
    nextB = matchB;
  };
  let posA = 0;
  let posB = 0;
  for (const change of changes) {
    const count = change.count;
    if (change.added) posB += count;
    else if (change.removed) posA += count;
    else {
      for (let k = 0; k < count; k++) {
        const matchA = keptA[posA + k] as number;
        upTo(matchA, keptB[posB + k] as number);
        push('unchanged', matchA, matchA + 1);
        nextA += 1;
        nextB += 1;
      }
      posA += count;
      posB += count;
    }
  }
  upTo(a.length, b.length);
  return runs;
}

/**
 * The unified text of a diff, as jsdiff's `createTwoFilesPatch` writes it: hunks with
 * {@link CONTEXT_LINES} lines of context, `\ No newline at end of file` where a text ends without one.
 */
export function unifiedText(
  parts: readonly { type: DiffPart['type']; lines: readonly string[] }[],
  names: { a: string; b: string },
): string {
  const hunks: StructuredPatchHunk[] = [];
  const context = (lines: readonly string[]): string[] => lines.map((line) => ` ${line}`);
  let oldStart = 0;
  let newStart = 0;
  let current: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as (typeof parts)[number];
    const { lines } = part;
    if (part.type !== 'unchanged') {
      if (oldStart === 0) {
        // a hunk opens with the context before its first change
        oldStart = oldLine;
        newStart = newLine;
        const before = i > 0 ? (parts[i - 1] as (typeof parts)[number]).lines.slice(-CONTEXT_LINES) : [];
        current = context(before);
        oldStart -= before.length;
        newStart -= before.length;
      }
      for (const line of lines) current.push(`${part.type === 'added' ? '+' : '-'}${line}`);
      if (part.type === 'added') newLine += lines.length;
      else oldLine += lines.length;
      continue;
    }
    if (oldStart !== 0) {
      if (lines.length <= CONTEXT_LINES * 2 && i < parts.length - 1) {
        // the context between two changes joins them into one hunk
        current.push(...context(lines));
      } else {
        const after = Math.min(lines.length, CONTEXT_LINES);
        current.push(...context(lines.slice(0, after)));
        hunks.push({ oldStart, oldLines: oldLine - oldStart + after, newStart, newLines: newLine - newStart + after, lines: current });
        oldStart = 0;
        newStart = 0;
        current = [];
      }
    }
    oldLine += lines.length;
    newLine += lines.length;
  }
  if (oldStart !== 0) hunks.push({ oldStart, oldLines: oldLine - oldStart, newStart, newLines: newLine - newStart, lines: current });
  for (const hunk of hunks) {
    const out: string[] = [];
    for (const line of hunk.lines) {
      if (line.endsWith('\n')) out.push(line.slice(0, -1));
      else out.push(line, '\\ No newline at end of file');
    }
    hunk.lines = out;
  }
  return formatPatch({ oldFileName: names.a, newFileName: names.b, oldHeader: undefined, newHeader: undefined, hunks });
}

/**
 * Line diff of `a` (before) and `b` (after), in order, plus the unified form; undefined when the
 * search for the shortest edit ran past `timeoutMs` (no limit when absent).
 */
export function diffConfigs(
  a: string,
  b: string,
  options: { names?: { a?: string; b?: string }; timeoutMs?: number } = {},
): ConfigDiff | undefined {
  const linesA = splitLines(a);
  const linesB = splitLines(b);
  const runs = lineRuns(linesA, linesB, options.timeoutMs ?? Infinity);
  if (runs === undefined) return undefined;
  let added = 0;
  let removed = 0;
  const parts = runs.map((run) => {
    const lines = (run.type === 'added' ? linesB : linesA).slice(run.from, run.to);
    if (run.type === 'added') added += lines.length;
    else if (run.type === 'removed') removed += lines.length;
    return { type: run.type, lines };
  });
  const diff = parts.map((part): DiffPart => ({ type: part.type, value: part.lines.join(''), count: part.lines.length }));
  const unified = unifiedText(parts, { a: options.names?.a ?? 'value_a', b: options.names?.b ?? 'value_b' });
  return { diff, added, removed, unified };
}

/**
 * Diffs a batch within `timeoutMs` for the whole batch: what the worker thread runs. Answers the
 * index of the diff that gave up when the time ran out.
 */
export function diffBatch(inputs: readonly DiffInput[], timeoutMs: number): DiffBatchOutcome {
  const started = Date.now();
  const diffs: ConfigDiff[] = [];
  for (let index = 0; index < inputs.length; index++) {
    const input = inputs[index] as DiffInput;
    const left = timeoutMs - (Date.now() - started);
    const diff = left < 0 ? undefined : diffConfigs(input.a, input.b, { ...(input.names ? { names: input.names } : {}), timeoutMs: left });
    if (diff === undefined) return { ok: false, index };
    diffs.push(diff);
  }
  return { ok: true, diffs };
}

/** Runs batches of line diffs, each bounded in time; rejects with MOP_DIFF_LIMIT_EXCEEDED past the bound. */
export interface DiffEngine {
  /** Longest a batch may take, in ms. */
  readonly timeoutMs: number;
  /** The diffs of `inputs`, in order. `deadline` (epoch ms): when the caller stops waiting; a batch still queued then is dropped. */
  diff(inputs: readonly DiffInput[], deadline?: number): Promise<ConfigDiff[]>;
}
