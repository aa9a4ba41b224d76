import type { ImportResult, ImportResultItem } from '@nap/contracts';

/** The answer of an import: each item reported on its own, the status success whatever they say. */
export function importResult<O, C>(what: string, imported: ImportResultItem<O, C>[]): ImportResult<O, C> {
  const ok = imported.filter((r) => r.success).length;
  return { status: 'success', message: `Imported ${ok} of ${imported.length} ${what}`, imported };
}
