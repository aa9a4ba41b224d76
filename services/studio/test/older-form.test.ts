import { existsSync } from 'node:fs';
import { isAppError } from '@nap/contracts';
import { exampleOf, fixturesAbsent } from '@nap/testing';
import { compileTransformation, createInlineRegexRunner, migrateTransformation, runTransformationPlan } from '../src/domain/jst';
import type { RunOptions } from '../src/domain/jst';
import { FIXTURES, fixtureTransformations } from './fixture-transformations';
import type { FixtureTransformation } from './fixture-transformations';
import { hasCallback, toOlderForm } from './older-form';

/**
 * Transformations saved by 2023.1-era releases against the same documents in the current form: every
 * fixture JST that has a callback is written in its older form (./older-form.ts, by that release's
 * rules), migrated as an import migrates it, and run on the same inputs as the current form. The two
 * must answer the same: the same result, or the same failure at the same step.
 */

type Obj = Record<string, unknown>;

const present = existsSync(FIXTURES);
const regex = createInlineRegexRunner();

interface Fixture {
  name: string;
  doc: FixtureTransformation['doc'];
}

/** The fixture JSTs that call one of their functions back. */
function fixtures(): Fixture[] {
  return fixtureTransformations()
    .filter((t) => hasCallback(t.doc))
    .map((t) => ({ name: `${t.file}: ${t.doc.name}`, doc: t.doc }));
}

type Outcome = { value: unknown } | { failed: string };

function outcome(doc: Obj, incoming: Obj, options: RunOptions = {}): Outcome {
  const { doc: migrated, errors } = migrateTransformation(doc);
  if (errors.length > 0) throw new Error(`the migration refused it: ${JSON.stringify(errors)}`);
  const compiled = compileTransformation(migrated);
  if (!compiled.plan) throw new Error(`does not compile: ${JSON.stringify(compiled.errors)}`);
  try {
    return { value: runTransformationPlan(compiled.plan, incoming, options, { regex }) };
  } catch (err) {
    if (isAppError(err)) return { failed: `${err.code}: ${err.message}` };
    throw err;
  }
}

/** Ids of the functions some step calls, or calls back. */
function called(doc: Obj): Set<unknown> {
  const scopes = [doc, ...((doc.functions ?? []) as Obj[])];
  return new Set(
    scopes.flatMap((scope) =>
      (scope.steps as Obj[]).flatMap((s) =>
        s.type === 'function' ? [s.function] : s.type === 'method' && Array.isArray(s.args) ? s.args : [],
      ),
    ),
  );
}

/**
 * The steps and incoming ids of every scope, as the engine reads them (schemas' other members are
 * documentation). Functions nothing calls are left out: in one fixture such a function read the whole
 * thisArg, which the original platform's own migration left as an assign from an incoming value that
 * no longer exists, so its two forms differ where it can never run.
 */
function shape(doc: Obj): unknown {
  const scope = (s: Obj) => ({
    incoming: (s.incoming as Obj[]).map((i) => i.$id),
    outgoing: (s.outgoing as Obj[]).map((o) => o.$id),
    steps: s.steps,
  });
  const used = called(doc);
  return {
    root: scope(doc),
    functions: ((doc.functions ?? []) as Obj[]).filter((f) => used.has(f.id)).map((f) => ({ id: f.id, ...scope(f) })),
  };
}

const examples = (doc: Fixture['doc']): Obj => Object.fromEntries(doc.incoming.map((s) => [s.$id, exampleOf(s)]));

if (!present) {
  describe('the 2023.1 form of the fixture transformations', () => {
    it('did NOT run: the fixtures folder is absent', () => {
      fixturesAbsent(FIXTURES, 'the 2023.1 form of the 44 fixture JSTs with a callback');
    });
  });
} else {
  describe('the 2023.1 form of the fixture transformations', () => {
    const all = fixtures();
    const find = (name: string): Fixture => {
      const found = all.find((f) => f.doc.name === name);
      if (!found) throw new Error(`No fixture transformation ${name}`);
      return found;
    };

    it('writes the older form of all 44 with a callback: their constant values become members of thisArg', () => {
      expect(all).toHaveLength(44);
      for (const { name, doc } of all) {
        const older = toOlderForm(doc);
        const text = JSON.stringify(older.functions);
        expect({ name, constantValues: /"constantValue\d+"/.test(text) }).toEqual({ name, constantValues: false });
        expect(older.version).toBe('4.1.2-2023.1.10');
      }
      const pair = toOlderForm(find('Allocate a Pair of Numbers').doc) as { functions: Obj[] };
      expect(pair.functions[0]?.incoming).toContainEqual({
        $id: 'thisArg',
        type: 'object',
        properties: {
          '0_allocated': { $id: '0_allocated', type: 'array' },
          '1_startRange': { $id: '1_startRange', type: 'integer' },
          '2_endRange': { $id: '2_endRange', type: 'integer' },
        },
        isContext: true,
        isIndexed: true,
      });
    });

    it('migrates each older form back to the current one exactly: the same incoming values and the same steps', () => {
      for (const { name, doc } of all) {
        const { doc: migrated, errors } = migrateTransformation(toOlderForm(doc));
        expect({ name, errors }).toEqual({ name, errors: [] });
        const current = migrateTransformation(doc).doc;
        expect({ name, shape: shape(migrated) }).toEqual({ name, shape: shape(current) });
      }
    });

    it('answers the same in both forms on inputs made from the schema examples, with and without options', () => {
      const options: RunOptions[] = [{}, { extractOutput: true, revertToDefaultValue: true }];
      let runs = 0;
      for (const { name, doc } of all) {
        const older = toOlderForm(doc);
        for (const o of options) {
          const incoming = examples(doc);
          expect({ name, options: o, older: outcome(older, incoming, o) }).toEqual({ name, options: o, older: outcome(doc, incoming, o) });
          runs += 1;
        }
      }
      expect(runs).toBe(88);
    });

    // Inputs written for these tests, beyond the schema examples: each drives the callbacks through
    // the constant values the older form passed in thisArg.
    const DRIVEN: Record<string, Obj[]> = {
      'Aggregate Functions for Arrays': [{ groupedArray: [1, 2, 3] }, { groupedArray: [4, '4', 'x', 10, 2.5, 4] }],
      'Allocate a Pair of Numbers': [
        { allocated: [1, 2, 3, 4, 6, 8, 9], startRange: 5, endRange: 15 },
        { allocated: [5, 7], startRange: 5, endRange: 8 },
        { allocated: [5, 6, 7, 8], startRange: 5, endRange: 8 },
      ],
      'Allocate One Number': [
        { allocated: [1, 2, 4], startRange: 1, endRange: 5 },
        { allocated: [1, 2], startRange: 1, endRange: 2 },
      ],
      'Chunk Array': [{ originalArray: [1, 2, 3, 4, 5, 6, 7], chunkSize: 3 }],
      'Convert CSV to JSON': [{ csv: 'host,ip\nr1,10.0.0.1\nr2' }],
      'Filter Array of Objects by Key Value Pair': [
        {
          filterableArray: [{ site: 'ams' }, { site: 'fra' }, { site: 'ams' }],
          keyToFilterOn: 'site',
          valueToFind: 'ams',
          discardMatching: false,
        },
        {
          filterableArray: [{ site: 'ams' }, { site: 'fra' }, { site: 'ams' }],
          keyToFilterOn: 'site',
          valueToFind: 'ams',
          discardMatching: true,
        },
      ],
      'Group Records by Property': [
        {
          array: [
            { os: 'ios', n: 1 },
            { os: 'eos', n: 2 },
            { os: 'ios', n: 3 },
          ],
          groupByProperty: 'os',
        },
      ],
      'Implement Set Operations on Arrays': [{ array1: [1, 2, 3, 4], array2: [3, 4, 5] }],
      'Parse Number': [
        { keysToConvert: ['a', 'c'], data: { a: '1', b: '2.5', c: ['-3', 'x'] } },
        { keysToConvert: ['a'], data: [{ a: '1' }, { a: 'x', b: '2' }] },
      ],
      'Remove Element From Array by Value': [
        { array: [7, 9, 7, 8], value: 7, removeAll: true },
        { array: [7, 9, 7, 8], value: 7, removeAll: false },
      ],
      'Separate Array of Objects by Key Value Pair': [{ dataArray: [{ os: 'ios' }, { os: 'eos' }], key: 'os', value: 'ios' }],
      'Transpose Record by Creating Arrays for Each Property Within Groups': [
        {
          array: [
            { g: 'a', x: 1, y: 2 },
            { g: 'b', x: 3, y: 4 },
            { g: 'a', x: 5, y: 6 },
          ],
          groupByProperty: 'g',
        },
      ],
    };

    it('answers the same in both forms on inputs that drive the callbacks through their constant values', () => {
      for (const [name, inputs] of Object.entries(DRIVEN)) {
        const { doc } = find(name);
        const older = toOlderForm(doc);
        for (const given of inputs) {
          const incoming = { ...examples(doc), ...given };
          const current = outcome(doc, incoming);
          expect({ name, incoming, older: outcome(older, incoming) }).toEqual({ name, incoming, older: current });
        }
      }
    });

    it('answers the issue’s cases: Aggregate Functions counts mode, deviation and variance; a reduce reads thisArg/0_allocated', () => {
      const aggregate = toOlderForm(find('Aggregate Functions for Arrays').doc);
      // [1, 2, 3]: every value once (frequency 1); variance ((1-2)² + 0 + (3-2)²) / 3 = 2/3, deviation its root
      expect(outcome(aggregate, { groupedArray: [1, 2, 3] }, { extractOutput: true })).toMatchObject({
        value: { mode: [1, 2, 3], modeFrequency: 1, variance: 2 / 3, standardDeviation: Math.sqrt(2 / 3) },
      });
      // the first free pair (n, n + 1) between 5 and 15 when 6, 8 and 9 are taken: 10 and 11
      const pair = toOlderForm(find('Allocate a Pair of Numbers').doc);
      expect(outcome(pair, { allocated: [1, 2, 3, 4, 6, 8, 9], startRange: 5, endRange: 15 }, { extractOutput: true })).toEqual({
        value: { assigned: [10, 11] },
      });
    });
  });
}
