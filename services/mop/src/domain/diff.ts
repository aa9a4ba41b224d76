import { createTwoFilesPatch, diffLines } from 'diff';

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

/** Line diff of `a` (before) and `b` (after), in order, plus the unified form. */
export function diffConfigs(a: string, b: string, names: { a?: string; b?: string } = {}): ConfigDiff {
  let added = 0;
  let removed = 0;
  const diff = diffLines(a, b).map((change): DiffPart => {
    const count = change.count;
    if (change.added) added += count;
    else if (change.removed) removed += count;
    return { type: change.added ? 'added' : change.removed ? 'removed' : 'unchanged', value: change.value, count };
  });
  const unified = createTwoFilesPatch(names.a ?? 'value_a', names.b ?? 'value_b', a, b, undefined, undefined, { context: 3 });
  return { diff, added, removed, unified };
}
