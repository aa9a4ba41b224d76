import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

it('keeps a scheduled re-attempt across a restart and fires it after the restart', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-mop-reattempt-'));
  let platform: TestPlatform | undefined;
  try {
    platform = await startTestPlatform({ dataDir });
    const token = await platform.login();
    const res = await platform.http('POST', '/mop/reattempt', {
      token,
      body: { job_id: 'job-restart', attemptID: 'configuration', attempts: 3, minutes: 0.03 },
    });
    expect(res.status).toBe(200);
    const { reattemptAt } = res.body as { reattemptAt: number };
    await platform.stop();
    platform = undefined;
    expect(Date.now()).toBeLessThan(reattemptAt);

    platform = await startTestPlatform({ dataDir });
    const store = platform.stores.get('mop');
    if (store === undefined) throw new Error('the platform runs no mop store');
    const stored = await eventually(
      'the re-attempt to be marked due after the restart',
      async () => {
        const doc = await store.collection('reattempts').findOne({ jobId: 'job-restart', attemptID: 'configuration' });
        return doc?.status === 'due' ? doc : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(stored).toMatchObject({ attempt: 1, attempts: 3, reattemptAt });
    expect(Number(stored.dueAt)).toBeGreaterThanOrEqual(reattemptAt);
    // the count survived the restart too
    const again = await platform.http('POST', '/mop/reattempt', {
      token: await platform.login(),
      body: { job_id: 'job-restart', attemptID: 'configuration', attempts: 3, minutes: 5 },
    });
    expect(again.body).toMatchObject({ attempt: 2 });
  } finally {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
