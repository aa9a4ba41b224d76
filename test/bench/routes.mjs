#!/usr/bin/env node
// The gateway's route lookup (RouteTable.find over the whole catalog), against a baseline measured in
// the same run: a plain Map lookup of the same number of keys. Paths: a literal route, parametrised
// ones of 2-5 segments (with the cross-method check that keeps a literal path to its own route), and
// a path no route has. Run after `npm run build`: node test/bench/routes.mjs
import { createRequire } from 'node:module';

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

function measure(label, fn, rounds = 2_000_000) {
  for (let i = 0; i < 100_000; i++) fn(i); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) fn(i);
  const ns = Number(process.hrtime.bigint() - t0) / rounds;
  console.log(`${label.padEnd(40)} ${ns.toFixed(1).padStart(8)} ns/lookup`);
  return ns;
}

let sink = 0;
const base = measure('baseline: Map.get of the same keys', (i) => {
  if (map.get(keys[i % keys.length]) !== undefined) sink++;
});
const found = measure(`RouteTable.find (${map.size} routes)`, (i) => {
  const [method, path] = requests[i % requests.length];
  if (table.find(method, path) !== undefined) sink++;
});
console.log(`ratio RouteTable.find / Map.get: ${(found / base).toFixed(1)}x (${sink > 0 ? 'ok' : 'nothing found?'})`);
