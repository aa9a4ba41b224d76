// A lab peer in a process of its own, so that its work does not share the benchmark's event loop,
// and a saturating load of calls against whatever is measured.
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The built bus and contracts, and the undici the admin service calls outside systems with; exits 2 before a build. */
export function builtClients() {
  try {
    return {
      bus: require(path.join(root, 'packages/bus/dist/index.js')),
      contracts: require(path.join(root, 'contracts/dist/index.js')),
      undici: require(require.resolve('undici', { paths: [path.join(root, 'services/admin')] })),
    };
  } catch (err) {
    console.error(`The benchmark uses built code: run \`npm run build\` first (${err.message})`);
    process.exit(2);
  }
}

/**
 * In the benchmark's module: `if (process.argv[2] === '--peer') await servePeer(start, clear)`. Starts
 * the peer, empties what it records for tests every second (a benchmark would only grow it), and
 * tells the parent its port and credentials.
 */
export async function servePeer(start, clear) {
  const peer = await start();
  setInterval(() => clear(peer), 1000).unref();
  process.send({ ready: { port: peer.port, user: peer.user, password: peer.password } });
  process.on('message', async (m) => {
    if (m === 'stop') {
      await peer.close();
      process.exit(0);
    }
  });
}

/** Runs the module at `moduleUrl` with `--peer`; answers its port and credentials and `stop()`. */
export async function forkPeer(moduleUrl) {
  const child = fork(fileURLToPath(moduleUrl), ['--peer'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const peer = await new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m.ready));
    child.once('exit', (code) => reject(new Error(`peer exited ${code}`)));
  });
  return { ...peer, stop: () => child.send('stop') };
}

/** Runs `total` calls of `one` with `concurrency` in flight; answers calls per second. */
export async function saturate(total, concurrency, one) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        await one();
      }
    }),
  );
  return (total / (performance.now() - started)) * 1000;
}
