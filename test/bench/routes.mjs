#!/usr/bin/env node
// The gateway's route lookup (RouteTable.find over the whole catalog), against a baseline measured in
// the same run: a plain Map lookup of the same number of keys. Paths: a literal route, parametrised
// ones of 2-5 segments (with the cross-method check that keeps a literal path to its own route), and
// a path no route has. Run after `npm run build`: node test/bench/routes.mjs (`--smoke`: a few
// short rounds).
import { createRequire } from 'node:module';
import { report, size } from './report.mjs';

const require = createRequire(import.meta.url);
const { CATALOG } = require('../../contracts/dist/index.js');
const { RouteTable } = require('../../gateway/dist/routes.js');

const table = new RouteTable(CATALOG);
const requests = [
  ['GET', '/operations-manager/jobs'],
  ['GET', '/user-management/groups/5f1e2d3c4b5a69788796a5b4'],
  ['GET', '/operations-manager/jobs/5f1e2d3c4b5a69788796a5b4'],
  ['POST', '/operations-manager/triggers/endpoint/port-turn-up'],
  ['GET', '/operations-manager/triggers/t1/export'],
  ['POST', '/workflow_engine/jobs/5f1e2d3c4b5a69788796a5b4/retryTask'],
  ['GET', '/no/such/route/here'],
];
const map = new Map(CATALOG.filter((op) => op.http).map((op) => [`${op.http.method} ${op.http.path}`, op]));
const keys = requests.map(([m, p]) => `${m} ${p}`);

// the machine is shared: baseline and table are measured in alternating rounds, and the medians compared
const ROUNDS = size(9, 3);
const PER_ROUND = size(300_000, 5_000);
let sink = 0;
const cases = {
  base: (i) => {
    if (map.get(keys[i % keys.length]) !== undefined) sink++;
  },
  table: (i) => {
    const [method, path] = requests[i % requests.length];
    if (table.find(method, path) !== undefined) sink++;
  },
};
for (const fn of Object.values(cases)) for (let i = 0; i < size(100_000, 5_000); i++) fn(i); // warm-up
const samples = { base: [], table: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, fn] of Object.entries(cases)) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < PER_ROUND; i++) fn(i);
    samples[name].push(Number(process.hrtime.bigint() - t0) / PER_ROUND);
  }
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const base = median(samples.base);
const found = median(samples.table);
console.log(`${'baseline: Map.get of the same keys'.padEnd(40)} ${base.toFixed(1).padStart(8)} ns/lookup (median of ${ROUNDS} rounds)`);
console.log(`${`RouteTable.find (${map.size} routes)`.padEnd(40)} ${found.toFixed(1).padStart(8)} ns/lookup (median of ${ROUNDS} rounds)`);
console.log(`ratio RouteTable.find / Map.get: ${(found / base).toFixed(1)}x (${sink > 0 ? 'ok' : 'nothing found?'})`);
if (sink === 0) throw new Error('RouteTable.find found no route');
report({
  name: `RouteTable.find (${map.size} routes)`,
  value: found,
  unit: 'ns/lookup',
  baseline: { name: 'Map.get of the same keys', value: base },
  better: 'lower',
});
