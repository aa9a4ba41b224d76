// The Node flags the standalone platform runs with: those of `npm start` (package.json's start
// script, the one place they are written; the image's CMD repeats them, checked by a test). A
// benchmark measures the platform as it is started, so the standalone platform it starts in a
// process of its own gets them, and one that hosts the platform in its own process runs under them:
//   import { PLATFORM_NODE_FLAGS, runUnderPlatformFlags } from './platform-flags.mjs';
//   spawn(process.execPath, [...PLATFORM_NODE_FLAGS, 'platform.mjs']);
//   await runUnderPlatformFlags();   // at the top of a benchmark: runs it again under the flags if it lacks them
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { startScriptNodeFlags } = require('../../packages/testing/dist/index.js');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const PLATFORM_NODE_FLAGS = startScriptNodeFlags(path.join(root, 'package.json'));

/**
 * Resolves at once when this process runs under the platform's flags. Otherwise runs the main
 * script again under them (same arguments, output and environment), passes SIGINT and SIGTERM on to
 * it, exits with its status, and never resolves: awaited at a module's top level, it holds back
 * every module that imports that one, so nothing of the benchmark runs twice.
 */
export function runUnderPlatformFlags() {
  if (PLATFORM_NODE_FLAGS.every((flag) => process.execArgv.includes(flag))) return Promise.resolve();
  const child = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return new Promise(() => {});
}
