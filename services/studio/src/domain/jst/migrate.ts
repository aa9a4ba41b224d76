import type { TransformationProblem } from '@nap/contracts';
import { findMethod } from './library';
import type { Obj } from './values';
import { isPlainObject, parsePointer } from './values';

/**
 * Transformations saved by 2023.1-era releases, translated to the current form before they are
 * checked, stored or run. Pure: answers a migrated copy, what was translated, and what could not be.
 *
 * The two forms differ only in how a callback receives the arguments written after it in its call
 * (`Array.map(array, fn, a, b)`; for reduce, after `initialValue`); call steps, pointers, method names
 * and every other step are the same. Current form: the callback's incoming schemas end with
 * `constantValue1..N`, one per argument, read like any incoming value. 2023.1 form: one incoming
 * schema `thisArg` (`type: object`, `isContext: true`) whose members are those arguments;
 * `isIndexed: true` marks members named `<position>_<label>` (`0_allocated`, `1_startRange`), the
 * position counting from 0 and the label being what the editor had wired in (an incoming name,
 * `reduce return`, …), so a step reads the second argument at `thisArg` `/1_startRange`. A `thisArg`
 * without `isIndexed` has no members in any exported document; reading it is taken as the one value
 * after the callback (JavaScript's thisArg).
 *
 * The translation, function by function: the `thisArg` schema becomes `constantValue1..N` (N the
 * highest position + 1, typed as the member was), an assign reading `/<n>_<label>/rest` reads
 * `constantValue<n+1>` at `/rest`, and an assign reading the whole object reads a copy of it built
 * by added steps (a `new Object` and one `Object.setProperty` per member). NAP hands a callback its
 * values by position, so where the older form listed fewer values before `thisArg` than the calling
 * method passes (3; reduce 4), placeholders fill the gap. What cannot be translated exactly is an
 * error naming the function and the step, never a guess.
 *
 * Documents of the current form may keep an assign reading `thisArg` whose schema is gone (the
 * original platform's own migration left such assigns); those read the next free `constantValueN`.
 */
export interface Migration {
  doc: Obj;
  /** Ids of the functions whose thisArg was translated, and what they receive now (`constantValue1, constantValue2`; empty: nothing). */
  migrated: { function: string; to: string }[];
  /** Constructs of the older form that have no exact translation: the document must be refused. */
  errors: TransformationProblem[];
}

const THIS_ARG = 'thisArg';
const POSITIONED = /^(0|[1-9]\d*)_/;
const ANY_TYPE = ['array', 'boolean', 'number', 'integer', 'string', 'object', 'null'];

function readsThisArg(step: unknown): step is Obj & { from: Obj } {
  return (
    isPlainObject(step) &&
    step.type === 'assign' &&
    isPlainObject(step.from) &&
    step.from.location === 'incoming' &&
    step.from.name === THIS_ARG
  );
}

function pointerOf(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function incomingIds(incoming: readonly unknown[]): Set<string> {
  return new Set(incoming.flatMap((s) => (isPlainObject(s) && typeof s.$id === 'string' ? [s.$id] : [])));
}

function nextFree(taken: ReadonlySet<string>, base: string, from = 1): string {
  let n = from;
  while (taken.has(`${base}${n}`)) n += 1;
  return `${base}${n}`;
}

/** How many values each function receives before its constant values, from the methods that call it back. */
function callbackValues(doc: Obj, functions: readonly unknown[]): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  const scopes = [doc, ...functions];
  for (const scope of scopes) {
    if (!isPlainObject(scope) || !Array.isArray(scope.steps)) continue;
    for (const step of scope.steps) {
      if (!isPlainObject(step) || step.type !== 'method' || !Array.isArray(step.args)) continue;
      const def = findMethod(String(step.library), String(step.method));
      if (def?.callback === undefined) continue;
      const id: unknown = step.args[def.callback];
      if (typeof id !== 'string') continue;
      const counts = out.get(id) ?? new Set<number>();
      // sort hands its callback two values and nothing after them
      counts.add(def.callbackValues ?? -1);
      out.set(id, counts);
    }
  }
  return out;
}

interface Context {
  fn: Obj;
  at: string;
  name: string;
  errors: TransformationProblem[];
}

function refuse(c: Context, step: unknown, index: number, message: string, suffix = ''): void {
  const id = isPlainObject(step) ? String(step.id) : '?';
  c.errors.push({
    code: 'OLDER_FORM_UNTRANSLATABLE',
    message: `function "${c.name}" step ${id}: ${message}`,
    path: `${c.at}/steps/${index}${suffix}`,
  });
}

/** The schema of constant value `n` (1-based), typed as the member of the thisArg object it replaces. */
function constantSchema(n: number, member: unknown): Obj {
  const type = isPlainObject(member) && member.type !== undefined ? member.type : ANY_TYPE;
  return { $id: `constantValue${n}`, type, isConstValue: true };
}

/**
 * Steps that rebuild the whole thisArg object from the constant values: `new Object("{}")`, then one
 * `Object.setProperty` per member. Answers the steps and the id of the last one (its answer is the object).
 */
function rebuildObject(members: readonly [string, number][], taken: Set<number | string>): { steps: Obj[]; last: number } {
  let id = 1;
  const fresh = (): number => {
    while (taken.has(id) || taken.has(String(id))) id += 1;
    taken.add(id);
    return id;
  };
  const steps: Obj[] = [];
  let last = fresh();
  steps.push({ id: last, type: 'declaration', library: 'Object', method: 'new Object', args: ['{}'] });
  for (const [key, position] of members) {
    const set = fresh();
    steps.push({ id: set, type: 'method', library: 'Object', method: 'setProperty', args: [null, key, null] });
    steps.push({
      id: fresh(),
      type: 'assign',
      from: { location: last === steps[0]?.id ? 'declaration' : 'method', name: last, ptr: '/return' },
      to: { location: 'method', name: set, ptr: '/args/0/value' },
    });
    steps.push({
      id: fresh(),
      type: 'assign',
      from: { location: 'incoming', name: `constantValue${position + 1}`, ptr: '' },
      to: { location: 'method', name: set, ptr: '/args/2/value' },
    });
    last = set;
  }
  return { steps, last };
}

/** Translates one function whose `thisArg` schema is at `at` of its incoming schemas. */
function translateContext(c: Context, thisAt: number, expected: ReadonlySet<number> | undefined): Obj | undefined {
  const fn = c.fn;
  const incoming = fn.incoming as unknown[];
  const steps: unknown[] = Array.isArray(fn.steps) ? fn.steps : [];
  const schema = incoming[thisAt] as Obj;
  const indexed = schema.isIndexed === true;
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const errorsBefore = c.errors.length;

  if (thisAt !== incoming.length - 1) {
    c.errors.push({
      code: 'OLDER_FORM_UNTRANSLATABLE',
      message: `function "${c.name}" lists incoming values after thisArg, which has no translation: the constant values must come last`,
      path: `${c.at}/incoming/${thisAt}`,
    });
    return undefined;
  }
  const leading = incoming.slice(0, thisAt);
  const taken = incomingIds(leading);
  if ([...taken].some((id) => /^constantValue\d+$/.test(id))) {
    c.errors.push({
      code: 'OLDER_FORM_UNTRANSLATABLE',
      message: `function "${c.name}" has both thisArg and constantValue incoming values; which argument each one is cannot be told`,
      path: `${c.at}/incoming/${thisAt}`,
    });
    return undefined;
  }

  // the position of each member: <n>_<label>, or, without isIndexed, the one value after the callback
  const members: [string, number][] = [];
  for (const key of Object.keys(properties)) {
    const m = POSITIONED.exec(key);
    if (indexed && m) members.push([key, Number(m[1])]);
  }
  const positionOf = (member: string): number | undefined => {
    if (!indexed) return 0;
    const known = members.find(([key]) => key === member);
    if (known) return known[1];
    const m = POSITIONED.exec(member);
    return m ? Number(m[1]) : undefined;
  };

  let count = members.reduce((n, [, p]) => Math.max(n, p + 1), 0);
  // positions some step reads: only those must line up with what the calling method passes
  let read = 0;
  const wholeReads: number[] = [];
  const rewritten = steps.map((step, i) => {
    if (!readsThisArg(step)) return step;
    const tokens = typeof step.from.ptr === 'string' ? parsePointer(step.from.ptr) : undefined;
    if (tokens === undefined) {
      refuse(c, step, i, `reads thisArg at ${JSON.stringify(step.from.ptr)}, which is not a JSON Pointer`, '/from/ptr');
      return step;
    }
    if (!indexed) {
      count = Math.max(count, 1);
      read = Math.max(read, 1);
      return { ...step, from: { ...step.from, name: 'constantValue1' } };
    }
    const [member, ...rest] = tokens;
    if (member === undefined) {
      wholeReads.push(i);
      read = Math.max(read, count);
      return step;
    }
    const position = positionOf(member);
    if (position === undefined) {
      refuse(
        c,
        step,
        i,
        `reads member "${member}" of thisArg, which names no argument position (the older form names them <position>_<label>)`,
        '/from/ptr',
      );
      return step;
    }
    count = Math.max(count, position + 1);
    read = Math.max(read, position + 1);
    return { ...step, from: { ...step.from, name: `constantValue${position + 1}`, ptr: pointerOf(rest) } };
  });

  // NAP hands values by position: the constants must follow exactly the values the calling method passes
  let padded = leading;
  if (expected !== undefined && read > 0) {
    if (expected.size > 1 || expected.has(-1)) {
      c.errors.push({
        code: 'OLDER_FORM_UNTRANSLATABLE',
        message: `function "${c.name}" reads thisArg but is called back by methods that pass it different values (${expected.has(-1) ? 'sort passes no constant values' : 'reduce passes 4 values before them, the others 3'})`,
        path: `${c.at}/incoming/${thisAt}`,
      });
      return undefined;
    }
    const wanted = [...expected][0] as number;
    if (leading.length > wanted) {
      c.errors.push({
        code: 'OLDER_FORM_UNTRANSLATABLE',
        message: `function "${c.name}" lists ${leading.length} incoming values before thisArg where its caller passes ${wanted}; the constant values would not reach it`,
        path: `${c.at}/incoming/${thisAt}`,
      });
      return undefined;
    }
    const names = new Set(taken);
    padded = [...leading];
    for (const name of ['index', 'array', 'unused'].slice(0, wanted - leading.length)) {
      const id = names.has(name) ? nextFree(names, name) : name;
      names.add(id);
      padded.push({ $id: id, type: ANY_TYPE });
    }
    while (padded.length < wanted) padded.push({ $id: nextFree(names, 'unused'), type: ANY_TYPE });
  }
  if (c.errors.length > errorsBefore) return undefined;

  const constants: Obj[] = [];
  for (let p = 0; p < count; p += 1) {
    const member = members.find(([, q]) => q === p);
    constants.push(constantSchema(p + 1, member ? properties[member[0]] : undefined));
  }

  let out = rewritten;
  if (wholeReads.length > 0) {
    const ids = new Set<number | string>(
      steps.flatMap((s) => (isPlainObject(s) && (typeof s.id === 'number' || typeof s.id === 'string') ? [s.id] : [])),
    );
    const built = rebuildObject(members, ids);
    out = rewritten.map((step, i) =>
      wholeReads.includes(i) && readsThisArg(step)
        ? { ...step, from: { location: built.steps.length === 1 ? 'declaration' : 'method', name: built.last, ptr: '/return' } }
        : step,
    );
    out = [...built.steps, ...out];
  }
  return { ...fn, incoming: [...padded, ...constants], steps: out };
}

/** A function of the current form whose assigns read `thisArg` while its schema is gone. */
function translateOrphanReads(fn: Obj): { fn: Obj; to: string } | undefined {
  const steps: unknown[] = Array.isArray(fn.steps) ? fn.steps : [];
  if (!steps.some(readsThisArg)) return undefined;
  const incoming: unknown[] = Array.isArray(fn.incoming) ? fn.incoming : [];
  const to = nextFree(incomingIds(incoming), 'constantValue');
  return {
    fn: {
      ...fn,
      incoming: [...incoming, { $id: to, title: to, type: ANY_TYPE, isConstValue: true }],
      steps: steps.map((s) => (readsThisArg(s) ? { ...s, from: { ...s.from, name: to } } : s)),
    },
    to,
  };
}

export function migrateTransformation(doc: Obj): Migration {
  if (!Array.isArray(doc.functions)) return { doc, migrated: [], errors: [] };
  const functions: unknown[] = doc.functions;
  const migrated: Migration['migrated'] = [];
  const errors: TransformationProblem[] = [];
  const values = callbackValues(doc, functions);
  let changed = false;
  const out = functions.map((fn: unknown, i) => {
    if (!isPlainObject(fn) || !Array.isArray(fn.incoming)) return fn;
    const name = String(fn.id);
    const thisAt = fn.incoming.findIndex((s) => isPlainObject(s) && s.$id === THIS_ARG);
    if (thisAt === -1) {
      const orphan = translateOrphanReads(fn);
      if (orphan === undefined) return fn;
      changed = true;
      migrated.push({ function: name, to: orphan.to });
      return orphan.fn;
    }
    const translated = translateContext({ fn, at: `/functions/${i}`, name, errors }, thisAt, values.get(name));
    if (translated === undefined) return fn;
    changed = true;
    const constants = (translated.incoming as Obj[]).flatMap((s) => (typeof s.$id === 'string' && s.isConstValue === true ? [s.$id] : []));
    migrated.push({ function: name, to: constants.join(', ') });
    return translated;
  });
  return { doc: changed ? { ...doc, functions: out } : doc, migrated, errors };
}
