#!/usr/bin/env node
// `npm test`: the whole suite. Builds (which typechecks every package), lints, then runs jest
// across the workspace with suites in parallel. Prerequisites that can be installed are installed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

process.env.TURBO_TELEMETRY_DISABLED = '1';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`\n✖ ${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}

function has(binary) {
  return spawnSync('sh', ['-c', `command -v ${binary} || test -x /usr/sbin/${binary}`], { stdio: 'ignore' }).status === 0;
}

// nats-server from Debian: the bus suite and the distributed tests need a real one.
if (!has('nats-server')) {
  if (process.getuid?.() === 0) {
    console.log('Installing nats-server (Debian package) for the bus and distributed tests…');
    run('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server']);
  } else {
    console.error('nats-server is missing: run `sudo apt-get install nats-server` (the bus and distributed tests need it).');
    process.exit(1);
  }
}

// Python's Jinja2 and TextFSM (Debian): the studio service renders templates with them.
const python = process.env.NAP_PYTHON || (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
if (spawnSync(python, ['-I', '-c', 'import jinja2, textfsm'], { stdio: 'ignore' }).status !== 0) {
  if (process.getuid?.() === 0 && !process.env.NAP_PYTHON) {
    console.log('Installing python3-jinja2 and python3-textfsm (Debian packages) for the template renderer…');
    run('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-jinja2 python3-textfsm']);
  } else {
    console.error(`${python} lacks jinja2 or textfsm: run \`sudo apt-get install python3-jinja2 python3-textfsm\` (or point NAP_PYTHON at a Python that has them); the template tests need them.`);
    // a developer machine runs the rest, the template tests say loudly that they did not; CI fails
    if (process.env.CI === 'true') process.exit(1);
  }
}

if (!existsSync('node_modules')) run('npm', ['ci', '--no-audit', '--no-fund']);
run('npx', ['turbo', 'run', 'build', '--output-logs=errors-only']);
run('npx', ['tsc', '-p', 'tsconfig.json']);
run('npx', ['eslint', '.', '--max-warnings=0']);
const jestArgs = ['jest', '--ci', `--maxWorkers=${process.env.NAP_TEST_WORKERS ?? '2'}`, ...process.argv.slice(2)];
run('npx', jestArgs);
