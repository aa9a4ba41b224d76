import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * A process stopped by SIGTERM exits, whoever reads its log: one whose log reader reads gets every
 * line out first ("Stopped" last); one whose reader stopped reading (a full pipe) and then went away
 * (a closed one) exits all the same, its last lines dropped. Before, the second waited for ever in
 * the logger's exit flush (a gateway of a benchmark outlived it so, at 1 % CPU, for good).
 */

const CHILD = path.join(__dirname, 'fixtures/shutdown-child.js');

function start(lines: number): Promise<ChildProcessByStdio<null, Readable, Readable>> {
  const child = spawn(process.execPath, [CHILD, String(lines)], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      if (String(d).includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`the child exited ${String(code)} before it was ready`)));
  });
}

function exited(child: ChildProcessByStdio<null, Readable, Readable>, withinMs: number): Promise<number | string> {
  return new Promise((resolve) => {
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('still running');
    }, withinMs);
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      resolve(code ?? String(signal));
    });
  });
}

it('writes every line out before exiting when the log is read, "Stopped" last', async () => {
  const child = await start(2_000);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += String(d)));
  child.kill('SIGTERM');
  expect(await exited(child, 15_000)).toBe(0);
  const lines = out.trimEnd().split('\n');
  expect(lines.filter((l) => l.includes('filling the log'))).toHaveLength(2_000);
  expect(JSON.parse(lines[lines.length - 1] as string)).toMatchObject({ msg: 'Stopped' });
}, 30_000);

it('exits when nobody reads its log: a full pipe whose reader then goes away', async () => {
  const child = await start(2_000);
  child.stdout.pause();
  child.kill('SIGTERM');
  // the reader goes away without having read, while the process waits for its lines to leave
  setTimeout(() => child.stdout.destroy(), 1_000);
  expect(await exited(child, 10_000)).toBe(0);
}, 30_000);
