#!/usr/bin/env node
// The console's figures, after `npm run build`: first-load JS (gzip, budget 300 kB), login → first
// rows of the jobs page with many jobs stored, a job event → the change on screen (target < 500 ms),
// and the time to render the largest fixture workflow's job (and a 150-task one) with its pan rate.
//   node test/bench/console.mjs            100,000 jobs (inserted through the API, in parallel)
//   node test/bench/console.mjs --jobs 20000
//   node test/bench/console.mjs --smoke    a tiny run that proves the bench still works (50 jobs, one reload and
//                                          one job event, a 30-task workflow, a short pan)
// Each figure is also a BENCH line (report.mjs) for `npm run bench`.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { report as benchLine, skip } from './report.mjs';
import { startBenchPlatform } from './standalone.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.join(ROOT, 'console/dist');
const FIXTURES = path.resolve(ROOT, '../shared/fixtures/itential-assets');
const CHROMIUM = '/usr/bin/chromium';
const smoke = process.argv.includes('--smoke');
const jobsArg = process.argv.indexOf('--jobs');
const JOBS = smoke ? 50 : jobsArg > 0 ? Number(process.argv[jobsArg + 1]) : 100_000;
const EVENT_RUNS = smoke ? 1 : 15;
const RELOADS = smoke ? 1 : 3;
/** Mouse moves of a pan across a job's graph. */
const PAN_MOVES = smoke ? 10 : 60;
/** Tasks of the workflow laid out by dagre. */
const LAID_OUT_TASKS = smoke ? 30 : 150;
const secondsArg = process.argv.indexOf('--insert-seconds');
/** Inserting stops after this long even when fewer jobs than asked are stored: the count stored is printed. */
const INSERT_SECONDS = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 240;

if (!existsSync(CHROMIUM)) skip(`${CHROMIUM} is missing: apt-get install chromium`);
for (const [file, hint] of [
  [path.join(DIST, 'index.html'), 'npm run build'],
  [path.join(ROOT, 'deploy/standalone/dist/index.js'), 'npm run build'],
]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: ${hint}`);
    process.exit(1);
  }
}

const figures = [];
const report = (name, value, goal = '') => {
  figures.push([name, value, goal]);
  console.log(`${name}: ${value}${goal ? ` (${goal})` : ''}`);
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
const ms = (x) => `${Math.round(x)} ms`;

// 1. what a first visit downloads: the scripts index.html loads (the graph and form pages load later)
const html = readFileSync(path.join(DIST, 'index.html'), 'utf8');
const firstLoad = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
const gz = (file) => gzipSync(readFileSync(path.join(DIST, file)), { level: 9 }).length;
const firstLoadBytes = firstLoad.reduce((sum, file) => sum + gz(file), 0);
const allJs = readdirSync(path.join(DIST, 'assets')).filter((f) => f.endsWith('.js'));
const allBytes = allJs.reduce((sum, file) => sum + gz(path.join('assets', file)), 0);
report('first-load JS, gzip', `${(firstLoadBytes / 1024).toFixed(1)} kB in ${firstLoad.length} file(s)`, 'budget 300 kB');
report('all JS (graph and form pages included), gzip', `${(allBytes / 1024).toFixed(1)} kB in ${allJs.length} files`);
benchLine({ name: 'first-load JS, gzip', value: firstLoadBytes / 1024, unit: 'kB', target: '<= 300' });
benchLine({ name: 'all JS, gzip', value: allBytes / 1024, unit: 'kB', better: 'lower' });
if (firstLoadBytes > 300 * 1024) process.exitCode = 1;

const bench = await startBenchPlatform('console', { env: { NAP_LOG_LEVEL: 'warn' } });
const { api } = bench;
const url = bench.platform.url;
const { chromium } = require('playwright-core');
let browser;
try {
  const wf = (name, tasks, transitions) => ({
    name,
    type: 'automation',
    groups: [],
    tasks: { workflow_start: { name: 'workflow_start', groups: [] }, workflow_end: { name: 'workflow_end', groups: [] }, ...tasks },
    transitions: { ...transitions, workflow_end: {} },
  });
  const go = { state: 'success', type: 'standard' };
  await api('POST', '/automation-studio/automations', { automation: wf('Bench noop', {}, { workflow_start: { workflow_end: go } }) });
  await api('POST', '/automation-studio/automations', {
    automation: wf(
      'Bench approval',
      {
        approve: {
          name: 'ViewData',
          app: 'WorkFlowEngine',
          type: 'manual',
          summary: 'Approve',
          groups: [],
          variables: { incoming: { header: 'h', message: 'm', body: 'b' }, outgoing: {} },
        },
      },
      { workflow_start: { approve: go }, approve: { workflow_end: go } },
    ),
  });

  // 2. many jobs, through the API, in parallel
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < JOBS && performance.now() - started < INSERT_SECONDS * 1000) {
      next += 1;
      await api('POST', '/operations-manager/jobs/start', { workflow: 'Bench noop', options: { description: `bench job ${next}` } });
      if (next % 10_000 === 0) console.log(`  … ${next} jobs stored`);
    }
  };
  await Promise.all(Array.from({ length: 48 }, worker));
  const insertSeconds = (performance.now() - started) / 1000;
  // the job list stops counting past its count limit (totalExact false): `next` jobs were started
  const listed = await api('GET', '/operations-manager/jobs?limit=1&include=_id');
  const total = listed.totalExact === false ? next : listed.total;
  report(
    'jobs stored (through POST /operations-manager/jobs/start, 48 at a time)',
    `${total} in ${insertSeconds.toFixed(0)} s (${Math.round(total / insertSeconds)}/s)` +
      (total < JOBS ? `: fewer than the ${JOBS} asked, the insert stops after ${INSERT_SECONDS} s (--insert-seconds)` : ''),
  );

  // what the API alone takes for the page the console asks for
  const query =
    '/operations-manager/jobs?limit=25&skip=0&sort=metrics.start_time&order=-1&include=_id,name,status,created_by,metrics,description,ancestors';
  const apiTimes = [];
  for (let i = 0; i < 5; i += 1) {
    const t = performance.now();
    await api('GET', query);
    apiTimes.push(performance.now() - t);
  }
  report('GET /operations-manager/jobs (first page, the console’s query), API alone', `median ${ms(median(apiTimes))}`);
  benchLine({ name: 'the console’s jobs page query, API alone, median', value: median(apiTimes), unit: 'ms', better: 'lower' });

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();

  // 3. login → first rows
  await page.goto(`${url}/console/login`);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill('bench-admin-password');
  const loginStart = performance.now();
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('table tbody tr').first().waitFor({ timeout: 60_000 });
  const loginMs = performance.now() - loginStart;
  report(`login → first rows of the jobs page (${total} jobs stored)`, ms(loginMs));
  benchLine({
    name: 'login → first rows of the jobs page',
    value: loginMs,
    unit: 'ms',
    baseline: { name: 'the same page from the API alone', value: median(apiTimes) },
  });
  const reloads = [];
  for (let i = 0; i < RELOADS; i += 1) {
    const t = performance.now();
    await page.reload();
    await page.locator('table tbody tr').first().waitFor({ timeout: 60_000 });
    reloads.push(performance.now() - t);
  }
  report('reload of the jobs page → first rows', `median ${ms(median(reloads))}`);
  benchLine({ name: 'reload of the jobs page → first rows, median', value: median(reloads), unit: 'ms', better: 'lower' });

  // 4. a job event → the change on screen: a person's task finished through the API, the row turns complete
  const sinceEvent = [];
  const sinceRequest = [];
  for (let i = 0; i < EVENT_RUNS; i += 1) {
    const { data: job } = await api('POST', '/operations-manager/jobs/start', { workflow: 'Bench approval', options: {} });
    const tail = job._id.slice(-6);
    const row = page.locator('table tbody tr', { hasText: tail });
    await row.waitFor({ timeout: 30_000 });
    await api('GET', `/operations-manager/jobs/${job._id}`);
    await page.evaluate((t) => {
      const rowOf = () => [...document.querySelectorAll('table tbody tr')].find((tr) => tr.textContent?.includes(t));
      window.__napChanged = new Promise((resolve) => {
        const check = () => rowOf()?.querySelector('[data-status="complete"]') && (resolve(Date.now()), true);
        if (check()) return;
        new MutationObserver((_, observer) => check() && observer.disconnect()).observe(document.body, {
          subtree: true,
          childList: true,
          attributes: true,
        });
      });
    }, tail);
    const requested = Date.now();
    await api('POST', `/operations-manager/jobs/${job._id}/tasks/approve/finish`, { variables: {} });
    const changedAt = await page.evaluate(() => window.__napChanged);
    const { data: done } = await api('GET', `/operations-manager/jobs/${job._id}`);
    sinceEvent.push(changedAt - done.metrics.end_time);
    sinceRequest.push(changedAt - requested);
  }
  report(
    'job event (jobComplete) → row changed on screen',
    `median ${ms(median(sinceEvent))}, p95 ${ms(p95(sinceEvent))} over ${EVENT_RUNS}`,
    'target < 500 ms',
  );
  report('finish request sent → row changed on screen', `median ${ms(median(sinceRequest))}, p95 ${ms(p95(sinceRequest))}`);
  benchLine({ name: 'job event → row changed on screen, median', value: median(sinceEvent), unit: 'ms', target: '< 500' });
  benchLine({ name: 'job event → row changed on screen, p95', value: p95(sinceEvent), unit: 'ms', better: 'lower' });
  benchLine({ name: 'finish request sent → row changed on screen, median', value: median(sinceRequest), unit: 'ms', better: 'lower' });

  // 5. the largest fixture workflow's job, and a 150-task one laid out by dagre
  const renderJob = async (label, workflowName, taskCount, variables = {}) => {
    const { data: job } = await api('POST', '/operations-manager/jobs/start', { workflow: workflowName, options: { variables } });
    const t = performance.now();
    await page.goto(`${url}/console/jobs/${job._id}`);
    await page.waitForFunction((n) => document.querySelectorAll('[data-task-id]').length >= n, taskCount, { timeout: 60_000 });
    const renderMs = performance.now() - t;
    // pan across the graph with the mouse and count the frames the browser drew meanwhile
    const pane = await page.locator('.react-flow__pane').boundingBox();
    await page.evaluate(() => {
      window.__napFrames = 0;
      const tick = () => {
        window.__napFrames += 1;
        window.__napRaf = requestAnimationFrame(tick);
      };
      window.__napRaf = requestAnimationFrame(tick);
    });
    const panStart = performance.now();
    await page.mouse.move(pane.x + pane.width / 2, pane.y + pane.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= PAN_MOVES; i += 1) await page.mouse.move(pane.x + pane.width / 2 - i * 8, pane.y + pane.height / 2 - i * 5);
    await page.mouse.up();
    const panMs = performance.now() - panStart;
    const frames = await page.evaluate(() => (cancelAnimationFrame(window.__napRaf), window.__napFrames));
    report(
      `${label}: job page → every task drawn`,
      `${ms(renderMs)} (${taskCount} tasks); pan ${Math.round((frames / panMs) * 1000)} frames/s`,
    );
    benchLine({ name: `${label}: job page → every task drawn`, value: renderMs, unit: 'ms', better: 'lower' });
    benchLine({ name: `${label}: pan`, value: (frames / panMs) * 1000, unit: 'frames/s', better: 'higher' });
  };

  if (existsSync(FIXTURES)) {
    let largest;
    for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith('.project.json'))) {
      const project = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8'));
      for (const c of project.components ?? []) {
        if (c.type !== 'workflow') continue;
        const count = Object.keys(c.document.tasks ?? {}).length;
        if (!largest || count > largest.count) largest = { project, name: c.document.name, document: c.document, count };
      }
    }
    await api('POST', '/automation-studio/projects/import', { project: largest.project });
    const { memberName } = require('../../contracts/dist/index.js');
    // the workflow's inputSchema decides which job variables it needs: any value of the right type starts it
    const sample = { string: 'bench', number: 1, integer: 1, boolean: false, object: {}, array: [] };
    const input = largest.document.inputSchema ?? {};
    const variables = Object.fromEntries((input.required ?? []).map((name) => [name, sample[input.properties?.[name]?.type] ?? 'bench']));
    await renderJob(
      `largest fixture workflow "${largest.name}" (${largest.project.name})`,
      memberName(largest.project._id, largest.name),
      largest.count,
      variables,
    );
  } else {
    report('largest fixture workflow', `not measured: ${FIXTURES} is absent`);
  }
  const many = LAID_OUT_TASKS;
  const tasks = {};
  const transitions = { workflow_start: { t0: go } };
  for (let i = 0; i < many; i += 1) {
    tasks[`t${i}`] = {
      name: 'stub',
      app: 'WorkFlowEngine',
      type: 'automatic',
      summary: `Step ${i + 1}`,
      groups: [],
      variables: { incoming: { type: 'success', delay: 3600 }, outgoing: {} },
    };
    // a ladder with side branches, as large workflows are
    transitions[`t${i}`] =
      i + 1 < many
        ? { [`t${i + 1}`]: go, ...(i % 10 === 0 && i + 5 < many ? { [`t${i + 5}`]: { state: 'failure', type: 'standard' } } : {}) }
        : { workflow_end: go };
  }
  await api('POST', '/automation-studio/automations', { automation: wf(`Bench ${many} tasks`, tasks, transitions) });
  await renderJob(`a ${many}-task workflow without positions (dagre)`, `Bench ${many} tasks`, many + 2);
} finally {
  await browser?.close();
  await bench.stop();
}

console.log('\nconsole figures');
for (const [name, value, goal] of figures) console.log(`  ${name.padEnd(72)} ${value}${goal ? `   [${goal}]` : ''}`);
