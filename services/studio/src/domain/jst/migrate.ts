import type { Obj } from './values';
import { isPlainObject } from './values';

/**
 * Transformations saved by older releases hand a callback one `thisArg` object (the JavaScript
 * `thisArg` of map/filter/find/…: the argument after the callback). Current ones name the arguments
 * after the callback `constantValue1..N`. The migration renames a function's `thisArg` incoming
 * schema to the next free `constantValueN` and every assign inside the function that reads it, so the
 * callback receives the same value in the same position. Pure: answers a migrated copy.
 */
export interface Migration {
  doc: Obj;
  /** Ids of the functions whose thisArg was renamed, and to what. */
  migrated: { function: string; to: string }[];
}

function renamed(step: unknown, to: string): unknown {
  if (!isPlainObject(step) || step.type !== 'assign' || !isPlainObject(step.from)) return step;
  if (step.from.location !== 'incoming' || step.from.name !== 'thisArg') return step;
  return { ...step, from: { ...step.from, name: to } };
}

function readsThisArg(step: unknown): boolean {
  return (
    isPlainObject(step) &&
    step.type === 'assign' &&
    isPlainObject(step.from) &&
    step.from.location === 'incoming' &&
    step.from.name === 'thisArg'
  );
}

export function migrateTransformation(doc: Obj): Migration {
  if (!Array.isArray(doc.functions)) return { doc, migrated: [] };
  const migrated: Migration['migrated'] = [];
  const functions = doc.functions.map((fn: unknown) => {
    if (!isPlainObject(fn) || !Array.isArray(fn.incoming)) return fn;
    const incoming: unknown[] = fn.incoming;
    const steps: unknown[] = Array.isArray(fn.steps) ? fn.steps : [];
    const at = incoming.findIndex((s) => isPlainObject(s) && s.$id === 'thisArg');
    // releases that migrated badly dropped the schema but kept the assigns that read it
    if (at === -1 && !steps.some(readsThisArg)) return fn;
    const taken = new Set(incoming.flatMap((s) => (isPlainObject(s) && typeof s.$id === 'string' ? [s.$id] : [])));
    let n = 1;
    while (taken.has(`constantValue${n}`)) n += 1;
    const to = `constantValue${n}`;
    migrated.push({ function: String(fn.id), to });
    const schema = { $id: to, title: to, type: ['array', 'boolean', 'number', 'integer', 'string', 'object', 'null'], isConstValue: true };
    return {
      ...fn,
      incoming:
        at === -1 ? [...incoming, schema] : incoming.map((s, i) => (i === at && isPlainObject(s) ? { ...s, $id: to, title: to } : s)),
      steps: steps.map((s) => renamed(s, to)),
    };
  });
  return migrated.length === 0 ? { doc, migrated } : { doc: { ...doc, functions }, migrated };
}
