import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compileTransformation } from '../compile';
import { createInlineRegexRunner } from '../regex';
import { runTransformationPlan } from '../run';
import type { CallContext } from './types';
import { DECLARATIONS, findMethod, methodNames } from '.';

/**
 * NAP's JST library against the original platform's, class by class and method by method. The
 * original's library documentation could not be had, so the table below is the union of two
 * sources, and says which each entry comes from:
 * - `used`: named by a step of the 894 transformation documents (285 transformations) in the whole
 *   history of the vendor's public repositories (itential/assets, which the fixtures come from, and
 *   six Itential-Pre-Builts projects, 2023.1 to 2023.2 releases): what real documents contain;
 * - `js`: the JavaScript built-in the class is named after (the designer's methods are those
 *   built-ins, called with the value first), where the answer is JSON data.
 * `UNSUPPORTED` lists what NAP refuses instead (docs/jst.md says why); a document naming one is
 * refused at import, never run differently.
 */
/** Names written as one text, a space between them. */
const words = (text: string): string[] => text.split(/\s+/).filter((w) => w !== '');

const ORIGINAL: Record<string, { used: string[]; js: string[] }> = {
  Array: {
    used: words(`concat fill filter find flatMap from getIndex includes indexOf isArray join length map pop push reduce
      reduceRight reverse setIndex shift slice sort splice`),
    js: words('at copyWithin every findIndex findLast findLastIndex flat forEach lastIndexOf of some toString unshift'),
  },
  Boolean: { used: [], js: words('toString valueOf') },
  Conditional: { used: words('ternary'), js: [] },
  Date: {
    used: words('getDate getFullYear getMonth getTime now parse toDateString toISOString'),
    js: words(`UTC getDay getHours getMilliseconds getMinutes getSeconds getTimezoneOffset getUTCDate getUTCDay getUTCFullYear
      getUTCHours getUTCMilliseconds getUTCMinutes getUTCMonth getUTCSeconds toJSON toUTCString valueOf`),
  },
  Equality: { used: words('deepEquals equality identity inequality nonidentity'), js: [] },
  JSON: { used: ['parse', 'stringify', 'type of'], js: [] },
  Logical: { used: words('and not nullish or'), js: [] },
  Math: {
    used: words('add ceil divide exponentiation floor max min multiply random round subtract'),
    js: words(`abs acos acosh asin asinh atan atan2 atanh cbrt clz32 cos cosh exp expm1 fround hypot imul log log10 log1p log2
      pow remainder sign sin sinh sqrt tan tanh trunc`),
  },
  Number: {
    used: words('isInteger isNaN parseFloat parseInt toString'),
    js: words('isFinite isSafeInteger toExponential toFixed toPrecision valueOf'),
  },
  Object: {
    used: [...words('deleteProperty entries fromEntries getProperty hasOwnProperty keys setProperty'), 'optional chaining'],
    js: words('assign is values'),
  },
  RegExp: { used: words('exec test'), js: [] },
  Relational: { used: words('greaterThan greaterThanOrEqual lessThan lessThanOrEqual'), js: [] },
  String: {
    used: words('charAt concat includes indexOf lastIndexOf length match replace search split substring toLowerCase toUpperCase trim'),
    js: words(`at charCodeAt codePointAt endsWith fromCharCode fromCodePoint normalize padEnd padStart repeat replaceAll slice
      startsWith substr toString trimEnd trimLeft trimRight trimStart valueOf`),
  },
  WorkFlowEngine: { used: words('query'), js: [] },
};

/** Constructors (`declaration` steps). `Undefined` is a class of the original named beside `Null`. */
const CONSTRUCTORS = {
  used: [...words('Array Boolean Date Null Number Object RegExp Set String').map((c) => `${c}.new ${c}`)],
  named: ['Undefined.new Undefined'],
};

/** Methods NAP has beyond the table: the value tests of the Null class and the Set methods that go with `new Set`. */
const NAP_ONLY = words('Null.isNull Null.isNullOrUndefined Null.isUndefined Set.add Set.delete Set.has Set.size Set.values');

/** Refused at import with UNKNOWN_METHOD; docs/jst.md gives the reason for each. */
const UNSUPPORTED = words(`Array.entries Array.keys Array.values String.matchAll String.localeCompare String.toLocaleLowerCase
  String.toLocaleUpperCase Number.toLocaleString Date.toString Date.toTimeString Date.toLocaleString Date.toLocaleDateString
  Date.toLocaleTimeString Date.setDate Date.setFullYear Date.setHours Date.setMilliseconds Date.setMinutes Date.setMonth
  Date.setSeconds Date.setTime`);

const regex = createInlineRegexRunner();
const callbacks = new Map<string, (...values: unknown[]) => unknown>();
const ctx: CallContext = {
  callback: (id, args) => (callbacks.get(String(id)) as (...values: unknown[]) => unknown)(...args),
  regex: (op) => regex.run(op),
  grow: () => undefined,
};

function call(name: string, ...args: unknown[]): unknown {
  const [library, method] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
  const def = findMethod(library, method);
  if (def === undefined) throw new Error(`${name} is not in the library`);
  return def.run(args, ctx);
}

describe('the JST library against the original platform’s', () => {
  it('has every class and method of the original', () => {
    const missing = Object.entries(ORIGINAL).flatMap(([library, { used, js }]) =>
      [...used, ...js].filter((m) => findMethod(library, m) === undefined).map((m) => `${library}.${m}`),
    );
    expect(missing).toEqual([]);
    expect([...CONSTRUCTORS.used, ...CONSTRUCTORS.named].filter((c) => DECLARATIONS[c] === undefined)).toEqual([]);
  });

  it('has nothing else but the methods it says it adds', () => {
    const table = new Set(Object.entries(ORIGINAL).flatMap(([library, { used, js }]) => [...used, ...js].map((m) => `${library}.${m}`)));
    expect(methodNames().filter((m) => !table.has(m) && !NAP_ONLY.includes(m))).toEqual([]);
    expect(Object.keys(DECLARATIONS).sort()).toEqual([...CONSTRUCTORS.used, ...CONSTRUCTORS.named].sort());
  });

  it('refuses every unsupported method at import, naming the step, and docs/jst.md lists each with its reason', () => {
    const docs = readFileSync(path.resolve(__dirname, '../../../../../../docs/jst.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Not supported'));
    for (const name of UNSUPPORTED) {
      const [library, method] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
      const { errors } = compileTransformation({ name: 'x', steps: [{ id: 1, type: 'method', library, method, args: [] }] });
      expect(errors).toEqual([
        { code: 'UNKNOWN_METHOD', message: `step 1 calls ${name}, which is not a method of the library`, path: '/steps/0' },
      ]);
      expect({ name, listed: section.includes(`\`${method}\``) }).toEqual({ name, listed: true });
    }
  });

  it('answers new Null as null and new Undefined by leaving the member out (the F5 BIG-IQ upgrade input)', () => {
    const { plan, errors } = compileTransformation({
      name: 'Create BIG-IQ Update Device Upgrade Input',
      incoming: [{ $id: 'task', type: 'object' }],
      outgoing: [{ $id: 'input', type: 'object' }],
      steps: [
        { id: 9, type: 'declaration', library: 'Null', method: 'new Null', args: [], context: '#' },
        { id: 12, type: 'declaration', library: 'Undefined', method: 'new Undefined', args: [] },
        {
          id: 10,
          type: 'assign',
          from: { location: 'declaration', name: 9, ptr: '/return' },
          to: { location: 'outgoing', name: 'input', ptr: '/password' },
        },
        {
          id: 11,
          type: 'assign',
          from: { location: 'incoming', name: 'task', ptr: '/selfLink' },
          to: { location: 'outgoing', name: 'input', ptr: '/selfLink' },
        },
        {
          id: 13,
          type: 'assign',
          from: { location: 'declaration', name: 12, ptr: '/return' },
          to: { location: 'outgoing', name: 'input', ptr: '/note' },
        },
      ],
    });
    expect(errors).toEqual([]);
    expect(
      runTransformationPlan(plan as NonNullable<typeof plan>, { task: { selfLink: 'https://bigiq/upgrades/1' } }, {}, { regex }),
    ).toEqual({
      input: { password: null, selfLink: 'https://bigiq/upgrades/1' },
    });
  });

  it('answers the added methods as JavaScript does, the value first', () => {
    const words = ['ams', 'fra', 'lon', 'fra'];
    callbacks.set('isFra', (v) => v === 'fra');
    const cases: [string, unknown[], unknown][] = [
      ['Array.at', [words, -1], words.at(-1)],
      ['Array.at', [words, 9], undefined],
      ['Array.copyWithin', [[1, 2, 3, 4, 5], 0, 3], [1, 2, 3, 4, 5].copyWithin(0, 3)],
      ['Array.copyWithin', [[1, 2, 3, 4, 5], 1, 0, 2], [1, 2, 3, 4, 5].copyWithin(1, 0, 2)],
      ['Array.findLast', [words, 'isFra'], 'fra'],
      ['Array.findLastIndex', [words, 'isFra'], 3],
      ['Array.forEach', [words, 'isFra'], undefined],
      ['Array.of', [7, 'x', null], [7, 'x', null]],
      ['Array.toString', [[1, [2, 3], null, 'a']], [1, [2, 3], null, 'a'].toString()],
      ['Boolean.valueOf', [false], false],
      ['Date.UTC', [2024, 1, 29], Date.UTC(2024, 1, 29)],
      ['Date.UTC', [2024], Date.UTC(2024, 0)],
      ['Date.UTC', [], Number.NaN],
      ['Date.getTimezoneOffset', ['2024-03-01T10:00:00Z'], 0],
      ['Date.getUTCHours', ['2024-03-01T10:00:00Z'], 10],
      ['Date.toUTCString', ['2024-03-01T10:00:00Z'], 'Fri, 01 Mar 2024 10:00:00 GMT'],
      ['Date.valueOf', ['2024-03-01T10:00:00Z'], Date.parse('2024-03-01T10:00:00Z')],
      ['Math.atan2', [1, 1], Math.atan2(1, 1)],
      ['Math.cbrt', ['27'], 3],
      ['Math.clz32', [1], 31],
      ['Math.hypot', [3, 4, '12'], 13],
      ['Math.imul', [0xffffffff, 5], -5],
      ['Math.log2', [1024], 10],
      ['Math.pow', [2, 10], 1024],
      ['Math.sign', [-3], -1],
      ['Math.sin', [Math.PI / 2], 1],
      ['Number.isSafeInteger', [2 ** 53], false],
      ['Number.toExponential', [123456], (123456).toExponential()],
      ['Number.toExponential', [123456, 2], '1.23e+5'],
      ['Number.toPrecision', [3.14159, 3], '3.14'],
      ['Number.toPrecision', [3.14159], (3.14159).toPrecision()],
      ['Number.valueOf', [42], 42],
      ['Object.is', [Number.NaN, Number.NaN], true],
      ['Object.is', [0, -0], false],
      ['String.at', ['router', -1], 'r'],
      ['String.charCodeAt', ['A', 0], 65],
      ['String.charCodeAt', ['A', 5], Number.NaN],
      ['String.codePointAt', ['😀', 0], 0x1f600],
      ['String.fromCharCode', [72, '105'], 'Hi'],
      ['String.fromCodePoint', [0x1f600], '😀'],
      ['String.normalize', ['e\u0301'], 'é'],
      ['String.normalize', ['é', 'NFD'], 'e\u0301'],
      ['String.substr', ['GigabitEthernet0/1', 7, 8], 'Ethernet'],
      ['String.substr', ['GigabitEthernet0/1', -3], '0/1'],
      ['String.trimLeft', ['  x  '], 'x  '],
      ['String.trimRight', ['  x  '], '  x'],
      ['String.valueOf', ['x'], 'x'],
    ];
    for (const [name, args, expected] of cases)
      expect({ name, args, answer: call(name, ...args) }).toEqual({ name, args, answer: expected });
    // they change nothing they are given
    const array = [1, 2, 3, 4, 5];
    call('Array.copyWithin', array, 0, 3);
    expect(array).toEqual([1, 2, 3, 4, 5]);
  });

  it('fails the step as JavaScript fails, by name: valueOf of null, digits out of range, a code point that is none', () => {
    expect(() => call('Number.valueOf', null)).toThrow('argument 1 (value) has no value of its own: null');
    expect(() => call('Number.toPrecision', 1, 101)).toThrow(RangeError);
    expect(() => call('Number.toExponential', '1', 2)).toThrow('argument 1 (number) must be a number, not string');
    expect(() => call('String.fromCodePoint', -1)).toThrow(RangeError);
    expect(() => call('String.normalize', 'x', 'NFX')).toThrow(RangeError);
  });
});
