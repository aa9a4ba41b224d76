#!/usr/bin/env node
// `npm run test:faults`: the fault campaign. Builds the platform (the campaign starts the built
// dist/ entry points as real processes, as users do), makes sure nats-server is there, then runs
// every test file of test/faults one after the other and prints the figures of each scenario.
// Not part of `npm test`; CI runs it after `npm test` in the same job.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

process.env.TURBO_TELEMETRY_DISABLED = '1';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\n✖ ${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}

function has(binary) {
  return spawnSync('sh', ['-c', `command -v ${binary} || test -x /usr/sbin/${binary}`], { stdio: 'ignore' }).status === 0;
}

if (!has('nats-server')) {
  if (process.getuid?.() === 0) {
    console.log('Installing nats-server (Debian package) for the distributed scenarios…');
    run('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server']);
  } else {
    console.error('nats-server is missing: run `sudo apt-get install nats-server` (the distributed scenarios need it).');
    process.exit(1);
  }
}

if (!existsSync('node_modules')) run('npm', ['ci', '--no-audit', '--no-fund']);
run('npx', ['turbo', 'run', 'build', '--output-logs=errors-only']);
run('npx', ['jest', '--ci', '--runInBand', '--config', 'test/faults/jest.config.js', ...process.argv.slice(2)]);
