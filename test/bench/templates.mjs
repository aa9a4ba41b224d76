#!/usr/bin/env node
// Benchmark of the template renderer (built dist/ code; `npx turbo run build` first): Jinja2
// renders through the studio service's pool of Python workers (JSON lines over stdio).
// 1. Latency at a steady 200 renders/s (goal: p50 under 2 ms), open loop: requests are sent on a
//    fixed schedule whether or not earlier ones have answered, so queueing shows in the figures.
//    Also with a new template text each time: the worker caches compiled templates, this is the
//    cost of a cache miss (Jinja2 compiles the text to Python first).
// 2. Throughput with 8 requests in flight.
// Baseline, same run, same pool: an echo request (the worker answers its input at once), which is
// the cost of the round trip itself (JSON over a pipe to Python and back) without any Jinja2.
// 3. The same steady rate through HTTP (gateway → bus → studio → worker), with an HTTP baseline of
//    GET /automation-studio/templates/:id (gateway → bus → studio → store).
// `--smoke`: 20 requests/s for a quarter of a second each, a tenth of a second of each closed loop
// (proves it runs).
import { createRequire } from 'node:module';
import { report, size } from './report.mjs';
import { startBenchPlatform } from './standalone.mjs';

const require = createRequire(import.meta.url);
const RATE = Number(process.env.NAP_BENCH_TEMPLATE_RATE ?? size(200, 20));
const SECONDS = Number(process.env.NAP_BENCH_TEMPLATE_SECONDS ?? size(5, 0.25));
const WARM_UP = size(500, 5);
const LOOP_SECONDS = size(3, 0.1);
const GOAL_P50_MS = 2;

const { createTemplateRenderer, loadTemplateRendererConfig } = require('../../services/studio/dist/index.js');

/** An interface configuration as users write them: loops, conditions, filters, ~40 lines of output. */
const TEMPLATE = `conf t
hostname {{ device.hostname }}
{% for intf in interfaces if intf.enabled %}
interface {{ intf.name }}
 description {{ intf.description | default('unused') | upper }}
{% if intf.vlan %} switchport access vlan {{ intf.vlan }}
{% endif %} {{ 'no shutdown' if intf.enabled else 'shutdown' }}
{% endfor %}
{% for server in ntp %}ntp server {{ server }}{% if loop.first %} prefer{% endif %}
{% endfor %}
end`;
const CONTEXT = {
  device: { hostname: 'edge-ams-1' },
  interfaces: Array.from({ length: 10 }, (_, i) => ({
    name: `GigabitEthernet0/${i}`,
    description: `port ${i}`,
    vlan: i % 3 === 0 ? null : 100 + i,
    enabled: i !== 7,
  })),
  ntp: ['10.0.0.1', '10.0.0.2', '10.0.0.3'],
};

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
}

/** Sends `send()` RATE times a second for SECONDS; answers the latencies (ms) and the rate achieved. */
async function steady(send) {
  const total = RATE * SECONDS;
  const interval = 1000 / RATE;
  const latencies = [];
  const pending = [];
  const start = performance.now();
  let sent = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + sent * interval <= now) {
        const t0 = performance.now();
        pending.push(send().then(() => latencies.push(performance.now() - t0)));
        sent += 1;
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
      else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  const seconds = (performance.now() - start) / 1000;
  return { ...summary(latencies), rate: latencies.length / seconds };
}

/** Keeps `inFlight` requests going for `seconds`; answers requests per second. */
async function closedLoop(send, inFlight = 8, seconds = 3) {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await send();
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

const fmt = (ms) => `${ms.toFixed(2).padStart(7)} ms`;
function line(label, r) {
  console.log(`  ${label.padEnd(46)} p50 ${fmt(r.p50)}   p99 ${fmt(r.p99)}   max ${fmt(r.max)}   (${Math.round(r.rate)} /s)`);
}

async function throughPool() {
  const config = loadTemplateRendererConfig();
  const renderer = createTemplateRenderer(config);
  try {
    const render = () => renderer.renderJinja({ template: TEMPLATE, context: CONTEXT, profile: 'templateBuilder', subject: 'bench' });
    const echo = () => renderer.echo(CONTEXT);
    const sample = await render();
    if (!sample.includes('interface GigabitEthernet0/9')) throw new Error(`unexpected render: ${sample}`);
    const v = renderer.pool.versions;
    console.log(
      `Worker pool: ${config.workers} workers, ${config.python} (Python ${v.python}, Jinja2 ${v.jinja2}, TextFSM ${v.textfsm}); template renders ${sample.split('\n').length} lines`,
    );
    for (let i = 0; i < WARM_UP; i++) await Promise.all([render(), echo()]);

    console.log(`Steady ${RATE} requests/s for ${SECONDS} s through the pool (goal: render p50 < ${GOAL_P50_MS} ms):`);
    const base = await steady(echo);
    line('baseline: echo round trip', base);
    const rendered = await steady(render);
    line('renderJinja', rendered);
    let n = 0;
    const uncached = await steady(() =>
      renderer.renderJinja({ template: `{# ${n++} #}${TEMPLATE}`, context: CONTEXT, profile: 'templateBuilder', subject: 'bench' }),
    );
    line('renderJinja, a new text each time (compiled)', uncached);
    console.log(
      `  ratio render / echo p50: ${(rendered.p50 / base.p50).toFixed(2)}   goal p50 < ${GOAL_P50_MS} ms: ${rendered.p50 < GOAL_P50_MS ? 'met' : 'NOT met'}`,
    );

    console.log('Throughput, 8 requests in flight:');
    const echoRate = await closedLoop(echo, 8, LOOP_SECONDS);
    const renderRate = await closedLoop(render, 8, LOOP_SECONDS);
    console.log(`  baseline: echo round trip                      ${Math.round(echoRate).toLocaleString('en-US').padStart(8)} /s`);
    console.log(
      `  renderJinja                                    ${Math.round(renderRate).toLocaleString('en-US').padStart(8)} /s   ratio ${(renderRate / echoRate).toFixed(2)}`,
    );
    const echoP50 = { name: 'echo round trip p50', value: base.p50 };
    report({ name: `renderJinja p50 at ${RATE}/s`, value: rendered.p50, unit: 'ms', target: `< ${GOAL_P50_MS}`, baseline: echoP50 });
    report({
      name: `renderJinja p50 at ${RATE}/s, a new text each time`,
      value: uncached.p50,
      unit: 'ms',
      baseline: echoP50,
      better: 'lower',
    });
    report({
      name: 'renderJinja, 8 in flight',
      value: renderRate,
      unit: 'req/s',
      baseline: { name: 'echo round trip, 8 in flight', value: echoRate },
      better: 'higher',
    });
  } finally {
    await renderer.close();
  }
}

async function throughHttp() {
  const { call, token, stop } = await startBenchPlatform('templates');
  try {
    const created = await call(
      'POST',
      '/automation-studio/templates',
      { template: { name: 'bench', type: 'jinja2', template: TEMPLATE, data: '{}' } },
      token,
    );
    const id = created.data._id;
    const render = () => call('POST', '/template_builder/templates/bench/renderJinja', { context: CONTEXT }, token);
    const get = () => call('GET', `/automation-studio/templates/${id}`, undefined, token);
    for (let i = 0; i < WARM_UP; i++) await Promise.all([render(), get()]);
    console.log(`Steady ${RATE} requests/s for ${SECONDS} s through HTTP (gateway, bus, studio):`);
    const base = await steady(get);
    line('baseline: GET /automation-studio/templates/:id', base);
    const rendered = await steady(render);
    line('POST /template_builder/templates/:name/renderJinja', rendered);
    console.log(`  ratio render / get p50: ${(rendered.p50 / base.p50).toFixed(2)}`);
    report({
      name: `POST /template_builder/templates/:name/renderJinja p50 at ${RATE}/s`,
      value: rendered.p50,
      unit: 'ms',
      baseline: { name: 'GET /automation-studio/templates/:id p50', value: base.p50 },
      better: 'lower',
    });
  } finally {
    await stop();
  }
}

await throughPool();
await throughHttp();
