// The suites' temporary files on a disk in memory. Every platform a test starts keeps its store in
// a fresh directory under os.tmpdir(), and the store does not answer a write before it is on disk:
// on a real disk each commit waits for a flush (milliseconds each, more while the other suites
// write too), and a suite of a few thousand writes spent half its time waiting for them. A tmpfs
// flushes at once; everything else (the stores' code, their crash tests, which kill processes, not
// the machine) is the same. jest's globalSetup (this file) makes a directory of this run on
// /dev/shm and points TMPDIR at it before the workers start, so that they, and the platforms,
// browsers and nats-servers they start, inherit it; its globalTeardown (memory-tmpdir-teardown.cjs)
// removes it. Left as it is: a TMPDIR set by hand, NAP_TEST_TMPFS=0, and a machine without a tmpfs
// at /dev/shm with room to spare (a container's default 64 MB is not).
const { chmodSync, mkdtempSync, rmSync, statfsSync } = require('node:fs');
const path = require('node:path');

const SHM = '/dev/shm';
const TMPFS_MAGIC = 0x01021994;
/** Room the suites may need at once: stores, browser profiles, archives, the benchmarks' data. */
const MIN_FREE_BYTES = 4 * 1024 ** 3;

/** /dev/shm when it is a tmpfs with MIN_FREE_BYTES free, else undefined. */
function memoryDisk() {
  try {
    const fs = statfsSync(SHM);
    return fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= MIN_FREE_BYTES ? SHM : undefined;
  } catch {
    return undefined;
  }
}

async function setup() {
  if (process.env.TMPDIR || process.env.NAP_TEST_TMPFS === '0') return;
  const disk = memoryDisk();
  if (disk === undefined) return;
  const dir = mkdtempSync(path.join(disk, 'nap-tests-'));
  // open to every user as /tmp is (sticky): the lab's sshd runs netconf-subsystem as the lab user,
  // which reaches its netconfd's socket in a directory under this one
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  process.env.NAP_TEST_MEMORY_TMPDIR = dir;
}

async function teardown() {
  const dir = process.env.NAP_TEST_MEMORY_TMPDIR;
  if (dir === undefined) return;
  rmSync(dir, { recursive: true, force: true });
  delete process.env.TMPDIR;
  delete process.env.NAP_TEST_MEMORY_TMPDIR;
}

module.exports = setup;
module.exports.teardown = teardown;
