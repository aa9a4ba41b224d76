#!/usr/bin/env node
// Benchmark of the mop service (built dist/ code; `npx turbo run build` first):
// 1. Rule evaluation throughput, pure: 10 rules of every kind against a `show version` output,
//    inline, and through the worker pool that guards the service against runaway patterns; baseline:
//    the same checks written directly as String.includes / RegExp.test, measured in the same run.
// 2. RunCommandTemplate of 5 commands × 10 rules on 100 simulated devices (lab CLI simulators in a
//    child process, the standalone platform in this one): wall time (target under 8 s); baseline: the
//    same 5 commands on the same devices with RunCommandDevices (no rules, no history), same run.
// `--smoke`: 0.1 s per rule figure, 3 devices (proves it runs).
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { LAB_ENTRY, loadLab } from './load-lab.mjs';
import { report, size } from './report.mjs';
import { startBenchPlatform } from './standalone.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const DEVICES = Number(process.env.NAP_BENCH_MOP_DEVICES ?? size(100, 3));
const SECONDS = size(2, 0.1);
const TARGET_S = 8;

const { createInlineRegexEngine, createRegexPool, evaluateRules } = require('../../services/mop/dist/index.js');

const OUTPUT = [
  'Cisco IOS Software, IOSv Software (VIOS-ADVENTERPRISEK9-M), Version 15.9(3)M6, RELEASE SOFTWARE (fc1)',
  'router1 uptime is 9 days, 3 hours, 4 minutes',
  'System image file is "flash0:/vios-adventerprisek9-m"',
  'Processor  7F3A2C10   399446576   140010232   259436344   258000000   257000000',
  'Configuration register is 0x0',
  ...Array.from({ length: 40 }, (_, i) => `GigabitEthernet0/${i} is ${i % 3 ? 'up' : 'down'}, line protocol is up`),
].join('\n');

/** Ten rules as users write them: every eval, flags, a comparison with %, a variable. */
const RULES = [
  { rule: 'Cisco IOS', eval: 'contains', severity: 'error' },
  { rule: 'uptime', eval: 'contains', severity: 'error', flags: { case: true } },
  { rule: 'Version <!version!>', eval: 'contains', severity: 'error' },
  { rule: 'Configuration register', eval: 'contains1', severity: 'warning' },
  { rule: 'Fatal', eval: '!contains', severity: 'error', flags: { case: true } },
  { rule: 'GigabitEthernet0/1\\d is up', eval: 'RegEx', severity: 'error', flags: { multiline: true } },
  { rule: '^System image file is "(\\S+)"$', eval: 'RegEx', severity: 'error', flags: { multiline: true, global: true } },
  { rule: 'Traceback|%SYS-2', eval: '!RegEx', severity: 'error' },
  {
    rule: '/Processor\\s+\\S+\\s+(\\d+)/',
    ruleB: '/Processor\\s+\\S+\\s+\\S+\\s+(\\d+)/',
    eval: '#comparison',
    evaluator: '%',
    percentage: 90,
    severity: 'error',
  },
  { rule: '/uptime is (\\d+) days/', ruleB: '<!days!>', eval: '#comparison', evaluator: '>=', severity: 'info' },
];
const VARIABLES = { version: '15.9', days: 1 };

function baselineOnce() {
  // the same checks, hand-written, patterns compiled once
  let n = 0;
  if (OUTPUT.includes('Cisco IOS')) n++;
  if (OUTPUT.toLowerCase().includes('uptime')) n++;
  if (OUTPUT.includes('Version 15.9')) n++;
  if (OUTPUT.indexOf('Configuration register') === OUTPUT.lastIndexOf('Configuration register')) n++;
  if (!OUTPUT.toLowerCase().includes('fatal')) n++;
  if (BASE_RE[0].test(OUTPUT)) n++;
  if (BASE_RE[1].test(OUTPUT)) n++;
  if (!BASE_RE[2].test(OUTPUT)) n++;
  const a = Number(BASE_RE[3].exec(OUTPUT)?.[1]);
  const b = Number(BASE_RE[4].exec(OUTPUT)?.[1]);
  if (b <= (a * 90) / 100) n++;
  if (Number(BASE_RE[5].exec(OUTPUT)?.[1]) >= 1) n++;
  return n;
}
const BASE_RE = [
  /GigabitEthernet0\/1\d is up/m,
  /^System image file is "(\S+)"$/m,
  /Traceback|%SYS-2/,
  /Processor\s+\S+\s+(\d+)/,
  /Processor\s+\S+\s+\S+\s+(\d+)/,
  /uptime is (\d+) days/,
];

async function measure(label, seconds, fn) {
  const end = performance.now() + seconds * 1000;
  let rules = 0;
  const started = performance.now();
  while (performance.now() < end) rules += await fn();
  const rate = rules / ((performance.now() - started) / 1000);
  console.log(`  ${label.padEnd(44)} ${Math.round(rate).toLocaleString('en-US').padStart(12)} rules/s`);
  return rate;
}

async function ruleThroughput() {
  console.log('Rule evaluation (10 rules per command output, pure):');
  const inline = createInlineRegexEngine();
  const check = await evaluateRules({ response: OUTPUT, rules: RULES, variables: VARIABLES }, inline);
  if (!check.result) throw new Error(`the benchmark rules should pass: ${JSON.stringify(check.rules.filter((r) => !r.result))}`);
  const base = await measure('baseline: hand-written includes/RegExp', SECONDS, async () => {
    for (let i = 0; i < 1000; i++) if (baselineOnce() !== 10) throw new Error('baseline checks failed');
    return 10_000;
  });
  const pure = await measure('evaluateRules, inline engine', SECONDS, async () => {
    for (let i = 0; i < 200; i++) await evaluateRules({ response: OUTPUT, rules: RULES, variables: VARIABLES }, inline);
    return 2_000;
  });
  const pool = createRegexPool({ jobTimeoutMs: 1_000 });
  const pooled = await measure(`evaluateRules, worker pool (${pool.size} workers)`, SECONDS, async () => {
    await Promise.all(Array.from({ length: 64 }, () => evaluateRules({ response: OUTPUT, rules: RULES, variables: VARIABLES }, pool)));
    return 640;
  });
  await pool.close();
  console.log(`  ratio inline / baseline: ${(pure / base).toFixed(3)}   pool / baseline: ${(pooled / base).toFixed(3)}`);
  const baseline = { name: 'hand-written includes/RegExp', value: base };
  report({ name: 'evaluateRules, inline engine', value: pure, unit: 'rules/s', baseline, better: 'higher' });
  report({ name: 'evaluateRules, worker pool', value: pooled, unit: 'rules/s', baseline, better: 'higher' });
}

/** A child script that serves the lab's CLI simulators (the built @nap/lab) and sends their ports. */
function simulatorsScript() {
  loadLab(); // fails early, naming the build, when the lab is not built
  const out = path.join(root, 'node_modules/.cache/nap-bench-lab');
  mkdirSync(out, { recursive: true });
  const child = `
const { startCliSimulator } = require(${JSON.stringify(LAB_ENTRY)});
(async () => {
  const n = Number(process.argv[2]);
  const sims = [];
  for (let i = 0; i < n; i++) sims.push(await startCliSimulator({ deviceType: 'cisco_ios', hostname: 'r' + i, startPrivileged: true }));
  process.send({ ports: sims.map((s) => ({ host: s.host, port: s.port, username: s.username, password: s.password })) });
  process.on('message', async () => { for (const s of sims) await s.stop(); process.exit(0); });
})().catch((err) => { console.error(err); process.exit(1); });
`;
  writeFileSync(path.join(out, 'serve-simulators.js'), child);
  return path.join(out, 'serve-simulators.js');
}

async function templateOnDevices() {
  console.log(`RunCommandTemplate, 5 commands x 10 rules on ${DEVICES} simulated devices:`);
  const script = simulatorsScript();
  const sims = fork(script, [String(DEVICES)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { ports } = await new Promise((resolve, reject) => {
    sims.once('message', resolve);
    sims.once('exit', (code) => reject(new Error(`the simulators exited with ${code}`)));
  });
  const { call, token, stop } = await startBenchPlatform('mop');
  try {
    const devices = [];
    for (const [i, p] of ports.entries()) {
      const name = `bench-${i}`;
      await call(
        'POST',
        '/gw/createInventoryDevice',
        { name, variables: { gw_host: p.host, gw_port: p.port, gw_network_os: 'cisco_ios', gw_user: p.username, gw_password: p.password } },
        token,
      );
      devices.push(name);
    }
    const commands = ['show version', 'show clock', 'show inventory', 'show memory statistics', 'show processes cpu'];
    await call(
      'POST',
      '/mop/createTemplate',
      { mop: { name: 'bench', passRule: true, commands: commands.map((command) => ({ command, passRule: false, rules: RULES })) } },
      token,
    );
    // warm-up: first logins, host keys
    await call('POST', '/mop/RunCommandDevices', { command: 'show clock', devices }, token);

    let t = performance.now();
    for (const command of commands) await call('POST', '/mop/RunCommandDevices', { command, devices }, token);
    const baseline = (performance.now() - t) / 1000;
    t = performance.now();
    const out = await call('POST', '/mop/RunCommandTemplate', { template: 'bench', variables: VARIABLES, devices }, token);
    const wall = (performance.now() - t) / 1000;
    const entries = out.commands_results.length;
    const failedOnDevice = out.commands_results.filter((r) => /failed on device/.test(r.message ?? '')).length;
    console.log(`  baseline: RunCommandDevices x 5 (no rules)      ${baseline.toFixed(2)} s`);
    console.log(
      `  RunCommandTemplate                              ${wall.toFixed(2)} s  (${entries} command results, ${entries * RULES.length} rules, ${failedOnDevice} failed on device)`,
    );
    console.log(
      `  ratio template / baseline: ${(wall / baseline).toFixed(2)}   target < ${TARGET_S} s: ${wall < TARGET_S ? 'met' : 'NOT met'}`,
    );
    report({
      name: `RunCommandTemplate, 5 commands x 10 rules on ${DEVICES} devices`,
      value: wall,
      unit: 's',
      target: `< ${TARGET_S}`,
      baseline: { name: 'RunCommandDevices x 5 (no rules)', value: baseline },
    });
  } finally {
    await stop();
    sims.send('stop');
  }
}

await ruleThroughput();
await templateOnDevices();
