// Child processes of a benchmark: started in the repository root, watched until their output says
// they are ready, and stopped at the end of the run even when it fails:
//   const proc = await startChild(process.execPath, ['gateway/dist/main.js'], env, /"url":"(http:\/\/[^"]+)"/, 'the gateway');
//   proc.match[1];                      // what `ready` matched
//   await stopChild(proc);              // SIGTERM, then its exit
//   await stopChildren();               // SIGTERM to every one still running, then their exits (in a finally)
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const children = new Set();

/**
 * Starts `cmd args` with `env` over this process's environment; resolves `{ child, match }` once
 * `ready` matches its output (stdout and stderr), rejects naming `what` with the output when it exits
 * first or is not ready within `timeoutMs`.
 */
export function startChild(cmd, args, env, ready, what, timeoutMs = 60_000) {
  const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} not ready:\n${out}`)), timeoutMs);
    const onData = (d) => {
      out += d;
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      children.delete(child);
      clearTimeout(timer);
      reject(new Error(`${what} exited ${code}:\n${out}`));
    });
  });
}

/** SIGTERM to a child started by {@link startChild}, resolved once it exited (at once when it already has). */
export async function stopChild(proc) {
  if (!children.has(proc.child)) return;
  const exited = new Promise((resolve) => proc.child.once('exit', resolve));
  proc.child.kill('SIGTERM');
  await exited;
}

/** SIGTERM to every child still running; resolved once they exited (SIGKILL to one still there after 10 s). */
export function stopChildren() {
  const exited = [...children].map(
    (child) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  );
  return Promise.all(exited);
}
