// What the test commands (`npm test`, `npm run test:faults`) share: running a step that must
// succeed, and installing the prerequisites that can be installed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Runs a command with inherited output; exits with its status when it fails. */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`\n✖ ${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}

function has(binary) {
  return spawnSync('sh', ['-c', `command -v ${binary} || test -x /usr/sbin/${binary}`], { stdio: 'ignore' }).status === 0;
}

/** nats-server from Debian (the bus suite and the distributed tests need a real one); installed as root, else exits naming the command. */
export function ensureNatsServer() {
  if (has('nats-server')) return;
  if (process.getuid?.() === 0) {
    console.log('Installing nats-server (Debian package) for the bus and distributed tests…');
    run('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server']);
  } else {
    console.error('nats-server is missing: run `sudo apt-get install nats-server` (the bus and distributed tests need it).');
    process.exit(1);
  }
}

/** curl and jq, which the README's examples use (test/e2e/readme-examples.test.ts runs them): installed as root, else exits naming the command. */
export function ensureExampleTools() {
  const missing = ['curl', 'jq'].filter((tool) => !has(tool));
  if (missing.length === 0) return;
  if (process.getuid?.() === 0) {
    console.log(`Installing ${missing.join(' and ')} (Debian) for the README's examples…`);
    run('sh', ['-c', `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing.join(' ')}`]);
  } else {
    console.error(`${missing.join(' and ')} missing: run \`sudo apt-get install ${missing.join(' ')}\` (the README's examples use them).`);
    process.exit(1);
  }
}

/**
 * Python's Jinja2 and TextFSM (Debian): the studio service renders templates with them. Installed as
 * root; otherwise a developer machine runs the rest (the template tests say loudly that they did
 * not run) and CI fails.
 */
export function ensurePythonTemplating() {
  const python = process.env.NAP_PYTHON || (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
  if (spawnSync(python, ['-I', '-c', 'import jinja2, textfsm'], { stdio: 'ignore' }).status === 0) return;
  if (process.getuid?.() === 0 && !process.env.NAP_PYTHON) {
    console.log('Installing python3-jinja2 and python3-textfsm (Debian packages) for the template renderer…');
    run('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-jinja2 python3-textfsm']);
  } else {
    console.error(
      `${python} lacks jinja2 or textfsm: run \`sudo apt-get install python3-jinja2 python3-textfsm\` (or point NAP_PYTHON at a Python that has them); the template tests need them.`,
    );
    if (process.env.CI === 'true') process.exit(1);
  }
}

/**
 * Debian's `prometheus` package, its server and promtool: test/deploy/monitoring.test.ts checks and
 * unit-tests the alert rules with promtool, and the end-to-end monitoring tests run the server.
 * Installed as root; otherwise a developer machine runs the rest (those tests say loudly that they
 * did not run) and CI fails.
 */
export function ensurePrometheus() {
  if (existsSync('/usr/bin/promtool') && existsSync('/usr/bin/prometheus')) return;
  if (process.getuid?.() === 0) {
    console.log('Installing prometheus (Debian package: the server and promtool) for the alert rule tests…');
    run('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus']);
  } else {
    console.error('Prometheus or promtool is missing: run `sudo apt-get install prometheus` (the alert rule tests need them).');
    if (process.env.CI === 'true') process.exit(1);
  }
}

/** Installs the workspace when it is not, then builds every package (turbo, errors only). */
export function installAndBuild() {
  process.env.TURBO_TELEMETRY_DISABLED = '1';
  if (!existsSync('node_modules')) run('npm', ['ci', '--no-audit', '--no-fund']);
  run('npx', ['turbo', 'run', 'build', '--output-logs=errors-only']);
}
