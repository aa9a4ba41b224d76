#!/usr/bin/env node
// nap-data benchmark (built dist/ code; `npm run build` first): backup, restore and copy of a data
// directory holding N finished jobs (about 2 KB of JSON each, as the engine leaves them) and a few
// accounts, between embedded stores on this machine's disk: documents/s of each, the backup's size.
// Baseline measured in the same run on the same jobs: the store floor of moving them, reading them
// in pages of nap-data's size from one embedded store and inserting each page into another (what any
// copy must do at least, without serializing, checking or reading back).
//   node test/bench/data.mjs              50,000 jobs (NAP_BENCH_JOBS to change)
//   node test/bench/data.mjs --smoke      300: proves the bench still runs (figures mean nothing)
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { report, size } from './report.mjs';

const require = createRequire(import.meta.url);
const { finishedJob } = require('../../packages/testing/dist/index.js');
const { createStore } = require('../../packages/store/dist/index.js');
const { backup, copy, restore } = require('../../deploy/standalone/dist/nap-data/operations.js');
const { parseLocation } = require('../../deploy/standalone/dist/nap-data/locations.js');

const JOBS = size(Number(process.env.NAP_BENCH_JOBS ?? 50_000), 300);
const PAGE = 500;
const work = mkdtempSync(path.join(os.tmpdir(), 'nap-bench-data-'));
const dir = (name) => path.join(work, name);
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

async function withStore(dataDir, db, fn) {
  const store = createStore({ dbName: db, dataDir });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The laptop: N finished jobs with their indexes, an admin database with accounts. */
async function fill(dataDir) {
  await withStore(dataDir, 'nap_workflow', async (store) => {
    const jobs = store.collection('jobs');
    await jobs.createIndexes([{ keys: { 'metrics.start_time': 1, _id: 1 } }, { keys: { status: 1, 'metrics.start_time': 1, _id: 1 } }]);
    const base = Date.now() - 86_400_000;
    for (let i = 0; i < JOBS; i += 2_000) {
      const page = [];
      for (let k = i; k < Math.min(JOBS, i + 2_000); k += 1) {
        const step = (n) => ({ incoming: { name: `v${n}`, value: `value ${k} ${n}` }, outgoing: { value: `value ${k} ${n}` } });
        page.push(
          finishedJob({
            id: `${k.toString(16).padStart(24, '0')}`,
            name: `bench-workflow-${k % 40}`,
            endTime: base + k,
            status: k % 9 === 0 ? 'error' : 'complete',
            steps: { t1: step(1), t2: step(2), t3: step(3), t4: step(4) },
            variables: { seed: `s${k}`, at: new Date(base + k) },
          }),
        );
      }
      await jobs.insertMany(page);
    }
  });
  await withStore(dataDir, 'nap_admin', (store) =>
    store.collection('accounts').insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: `a${i}`, username: `user-${i}`, groups: [] }))),
  );
}

/** The floor: pages of the jobs read from one store and inserted into another. */
async function floor(from, to) {
  const started = performance.now();
  await withStore(from, 'nap_workflow', (source) =>
    withStore(to, 'nap_workflow', async (target) => {
      let after;
      for (;;) {
        const page = await source
          .collection('jobs')
          .find(after === undefined ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit: PAGE });
        if (page.length === 0) break;
        await target.collection('jobs').insertMany(page);
        after = page[page.length - 1]._id;
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

const seconds = async (fn) => {
  const started = performance.now();
  await fn();
  return (performance.now() - started) / 1000;
};

try {
  const laptop = dir('laptop');
  await fill(laptop);
  const bytes = await withStore(
    laptop,
    'nap_workflow',
    async (s) =>
      (await s.collection('jobs').find({}, { limit: 200 })).reduce((n, j) => n + Buffer.byteLength(JSON.stringify(j)), 0) /
      Math.min(200, JOBS),
  );
  const documents = JOBS + 50;
  const floorSeconds = await floor(laptop, dir('floor'));
  const file = dir('laptop.ndjson.gz');
  const backupSeconds = await seconds(() => backup(parseLocation(laptop), file));
  const restoreSeconds = await seconds(() => restore(file, parseLocation(dir('restored'))));
  const copySeconds = await seconds(() => copy(parseLocation(laptop), parseLocation(dir('copied'))));
  const fileBytes = statSync(file).size;
  const rate = (s) => documents / s;
  const floorRate = JOBS / floorSeconds;
  console.log(
    `${JOBS} jobs of ${fmt(bytes)} B: floor ${fmt(floorRate)}/s, backup ${fmt(rate(backupSeconds))}/s (${fmt(backupSeconds, 1)} s, file ${fmt(fileBytes / 1048576, 1)} MiB), ` +
      `restore ${fmt(rate(restoreSeconds))}/s (${fmt(restoreSeconds, 1)} s), copy ${fmt(rate(copySeconds))}/s (${fmt(copySeconds, 1)} s); load ${os.loadavg()[0].toFixed(2)}`,
  );
  const baseline = { name: 'store floor: read pages and insert them, documents/s', value: floorRate };
  report({ name: `backup of ${JOBS} jobs, documents/s`, value: rate(backupSeconds), unit: 'docs/s', baseline });
  report({
    name: `restore of ${JOBS} jobs (checked whole first, read back), documents/s`,
    value: rate(restoreSeconds),
    unit: 'docs/s',
    baseline,
  });
  report({ name: `copy of ${JOBS} jobs (read back), documents/s`, value: rate(copySeconds), unit: 'docs/s', baseline });
  report({ name: `backup file of ${JOBS} jobs`, value: fileBytes / 1048576, unit: 'MiB', better: 'lower' });
} finally {
  rmSync(work, { recursive: true, force: true });
}
