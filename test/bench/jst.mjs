#!/usr/bin/env node
// Benchmark of the JST engine in process (built dist/ code; `npx turbo run build` first): runs per
// second of a 10-step and a 100-step transformation (a chain of Math.add, String.concat and
// Object.setProperty steps wired by assigns, compiled once, run many times), against a baseline
// measured in the same run: the same logic as plain JavaScript function calls. Goal: 20,000 runs/s
// for 10 steps. `--smoke`: 50 ms per figure (proves it runs).
import { createRequire } from 'node:module';
import { report, size } from './report.mjs';

const require = createRequire(import.meta.url);
const { compileTransformation, createInlineRegexRunner, runTransformationPlan } = require(
  process.env.NAP_BENCH_STUDIO_DIST ?? '../../services/studio/dist/index.js',
);

const DURATION_MS = Number(process.env.NAP_BENCH_JST_MS ?? size(2_000, 50));

/** A chain of `steps` method steps: n → n + 1 → "v" + n → { value } → … and the last answer as the outgoing `out`. */
function chain(steps) {
  const kinds = [
    (id) => ({ id, type: 'method', library: 'Math', method: 'add', args: [null, 1] }),
    (id) => ({ id, type: 'method', library: 'String', method: 'concat', args: ['v', null] }),
    (id) => ({ id, type: 'method', library: 'Object', method: 'setProperty', args: [{}, 'value', null] }),
    (id) => ({ id, type: 'method', library: 'Object', method: 'getProperty', args: [null, 'value'] }),
    (id) => ({ id, type: 'method', library: 'String', method: 'length', args: [null] }),
  ];
  const argOf = [0, 1, 2, 0, 0];
  const out = [];
  for (let i = 1; i <= steps; i += 1) {
    const k = (i - 1) % kinds.length;
    out.push(kinds[k](i));
    const from = i === 1 ? { location: 'incoming', name: 'n', ptr: '' } : { location: 'method', name: i - 1, ptr: '/return' };
    out.push({ id: 1000 + i, type: 'assign', from, to: { location: 'method', name: i, ptr: `/args/${argOf[k]}/value` } });
  }
  out.push({
    id: 5000,
    type: 'assign',
    from: { location: 'method', name: steps, ptr: '/return' },
    to: { location: 'outgoing', name: 'out', ptr: '' },
  });
  return { name: `chain-${steps}`, incoming: [{ $id: 'n', type: 'number' }], outgoing: [{ $id: 'out' }], steps: out, functions: [] };
}

/** The same chain as plain function calls. */
function plain(steps) {
  const fns = [(x) => x + 1, (x) => 'v'.concat(x), (x) => ({ ...{}, value: x }), (x) => x.value, (x) => x.length];
  return (n) => {
    let v = n;
    for (let i = 0; i < steps; i += 1) v = fns[i % fns.length](v);
    return JSON.parse(JSON.stringify({ out: v }));
  };
}

function measure(fn) {
  let runs = 0;
  const end = performance.now() + DURATION_MS;
  while (performance.now() < end) {
    for (let i = 0; i < 100; i += 1) fn(i);
    runs += 100;
  }
  return (runs * 1000) / DURATION_MS;
}

const regex = createInlineRegexRunner();
console.log(`JST engine, in process, ${DURATION_MS} ms per figure`);
for (const steps of [10, 100]) {
  const { plan, errors } = compileTransformation(chain(steps));
  if (!plan) throw new Error(JSON.stringify(errors));
  const engine = (n) => runTransformationPlan(plan, { n }, {}, { regex });
  const base = plain(steps);
  if (JSON.stringify(engine(3)) !== JSON.stringify(base(3)))
    throw new Error(`engine ${JSON.stringify(engine(3))} and baseline ${JSON.stringify(base(3))} differ`);
  measure(engine);
  measure(base);
  const e = measure(engine);
  const b = measure(base);
  const goal = steps === 10 ? `  (goal ≥ 20,000/s: ${e >= 20_000 ? 'met' : 'NOT met'})` : '';
  console.log(
    `${String(steps).padStart(3)} steps: ${Math.round(e).toLocaleString('en')} runs/s; baseline (plain JS calls) ${Math.round(b).toLocaleString('en')} runs/s; engine/baseline ${(e / b).toFixed(3)}${goal}`,
  );
  report({
    name: `${steps}-step transformation`,
    value: e,
    unit: 'runs/s',
    ...(steps === 10 ? { target: '>= 20000' } : { better: 'higher' }),
    baseline: { name: 'the same logic as plain JS calls', value: b },
  });
}
