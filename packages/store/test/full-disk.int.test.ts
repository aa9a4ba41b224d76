/**
 * The embedded store when the disk under it fills up, on a small disk of its own (a tmpfs mounted
 * in a mount namespace of the child process, so nothing is mounted on the machine):
 * - below the free space it keeps, a write is refused with `STORE_FULL` before LMDB writes anything;
 * - with no free space kept, LMDB itself runs out: the write fails with `STORE_FULL` saying part of
 *   it may be kept, and the process goes on (LMDB's failed commit used to reject a promise nobody
 *   held, which ended the process);
 * - reads go on while the disk is full, and writes go on once there is room.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onSmallDisk, smallDiskAvailable } from '@nap/testing';

const DIST = join(__dirname, '..', 'dist', 'index.js');
const CHILD = join(__dirname, 'full-disk-child.js');

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
  details?: { nothingWritten?: boolean; freeBytes?: number; minFreeBytes?: number };
}
interface ChildReport {
  whileFull: Outcome[];
  read: number;
  after: Outcome;
  afterRead: unknown;
  unhandled: string[];
  crashed?: string;
}

const describeMounts = smallDiskAvailable("the embedded store's full-disk tests") ? describe : describe.skip;

let work: string;
beforeAll(() => {
  if (!existsSync(DIST)) throw new Error('packages/store/dist is missing: run `npm run build` at the repository root');
  work = mkdtempSync(join(tmpdir(), 'nap-store-full-disk-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the child on a tmpfs of `sizeMib` of its own, keeping `minFreeBytes`; answers its report. */
function runOnSmallDisk(name: string, sizeMib: number, minFreeBytes: number): ChildReport {
  const disk = join(work, name);
  const [command, ...args] = onSmallDisk(disk, sizeMib);
  const run = spawnSync(command as string, [...args, process.execPath, CHILD, disk, String(minFreeBytes)], {
    encoding: 'utf8',
    timeout: 60_000,
    cwd: work,
    env: process.env,
  });
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  if (!line.startsWith('{')) throw new Error(`the child printed no report (status ${run.status}):\n${run.stdout}\n${run.stderr}`);
  const report = JSON.parse(line) as ChildReport;
  if (report.crashed !== undefined) throw new Error(`the child failed: ${report.crashed}`);
  return report;
}

describeMounts('the embedded store on a full disk', () => {
  beforeAll(() => {
    for (const name of ['kept', 'none']) spawnSync('mkdir', ['-p', join(work, name)]);
  });

  it('refuses every write below the free space it keeps, before writing anything, and writes again once there is room', () => {
    const report = runOnSmallDisk('kept', 24, 4 * 1024 * 1024);
    expect(report.unhandled).toEqual([]);
    expect(report.whileFull).toHaveLength(40);
    for (const outcome of report.whileFull) {
      expect(outcome).toMatchObject({ ok: false, code: 'STORE_FULL', details: { nothingWritten: true, minFreeBytes: 4 * 1024 * 1024 } });
      expect(outcome.message).toMatch(
        /has 0\.0 MiB free, less than the 4\.0 MiB it keeps \(NAP_DATA_MIN_FREE_MB\); nothing of the write was kept/,
      );
    }
    expect(report.read).toBe(20);
    expect(report.after).toEqual({ ok: true });
    expect(report.afterRead).toEqual({ _id: 'after', n: 1000 });
  }, 90_000);

  it('keeps running when LMDB itself runs out of space: STORE_FULL, saying part of the write may be kept', () => {
    const report = runOnSmallDisk('none', 24, 0);
    expect(report.unhandled).toEqual([]);
    const refused = report.whileFull.filter((o) => !o.ok);
    expect(refused.length).toBeGreaterThan(0);
    // LMDB says ENOSPC, or EIO for a page write after one that failed: both are the full disk
    for (const outcome of refused) {
      expect(outcome).toMatchObject({ code: 'STORE_FULL', details: { nothingWritten: false } });
      expect(outcome.message).toMatch(
        /is full \((No space left on device|Input\/output error)\): the write failed and part of it may be kept; read before writing again$/,
      );
    }
    expect(report.read).toBe(20);
    expect(report.after).toEqual({ ok: true });
    expect(report.afterRead).toEqual({ _id: 'after', n: 1000 });
  }, 90_000);
});
