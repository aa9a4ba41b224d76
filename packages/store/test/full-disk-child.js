'use strict';
// Child process of full-disk.int.test.ts, run by `unshare` in a mount namespace of its own, with a
// small tmpfs mounted at <disk>. Opens the embedded store from the COMPILED package (dist/) at
// <disk>/store keeping <minFreeBytes> free, fills the disk with a file (dd), writes, removes the
// file, writes again, and prints one JSON line of what it saw.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');
const { createEmbeddedStore } = require('../dist/index.js');

const unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(String(reason && reason.message)));

function outcome(error) {
  return error === undefined ? { ok: true } : { ok: false, code: error.code, message: error.message, details: error.details };
}

async function attempt(write) {
  try {
    await write();
    return outcome(undefined);
  } catch (error) {
    return outcome(error);
  }
}

async function main() {
  const [disk, minFreeBytes] = [process.argv[2], Number(process.argv[3])];
  const store = createEmbeddedStore({ path: join(disk, 'store'), minFreeBytes });
  const docs = store.collection('docs');
  await docs.createIndexes([{ keys: { n: 1 } }]);
  for (let i = 0; i < 20; i += 1) await docs.insertOne({ _id: `before-${i}`, n: i, body: 'b'.repeat(3000) });
  const filler = join(disk, 'filler');
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M'], { stdio: 'ignore' });
  } catch {
    // dd ends with "No space left on device": the disk is full
  }
  // reading the disk's space takes the reading for the write check too: no wait for the last one to age
  await store.diskSpace();
  const whileFull = [];
  for (let i = 0; i < 40; i += 1)
    whileFull.push(await attempt(() => docs.insertOne({ _id: `full-${i}`, n: 100 + i, body: 'f'.repeat([10, 3000, 30000][i % 3]) })));
  const read = await docs.countDocuments({ _id: { $regex: '^before-' } });
  execFileSync('rm', [filler]);
  await store.diskSpace();
  const after = await attempt(() => docs.insertOne({ _id: 'after', n: 1000 }));
  const afterRead = await docs.findOne({ _id: 'after' });
  process.stdout.write(`${JSON.stringify({ whileFull, read, after, afterRead, unhandled })}\n`);
  process.exit(0);
}

main().catch((error) => {
  process.stdout.write(`${JSON.stringify({ crashed: String(error && error.stack) })}\n`);
  process.exit(1);
});
