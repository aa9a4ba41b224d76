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

if (!existsSync('node_modules')) run('npm', ['ci', '--no-audit', '--no-fund']);
run('npx', ['turbo', 'run', 'build', '--output-logs=errors-only']);
run('npx', ['tsc', '-p', 'tsconfig.json']);
run('npx', ['eslint', '.', '--max-warnings=0']);
const jestArgs = ['jest', '--ci', `--maxWorkers=${process.env.NAP_TEST_WORKERS ?? '2'}`, ...process.argv.slice(2)];
run('npx', jestArgs);
