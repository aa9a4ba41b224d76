import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Trigger } from '@nap/contracts';
import { createClient, loadConfig } from '@nap/runtime';
import type { RunningService } from '@nap/runtime';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createLogger, createMetrics } from '@nap/telemetry';
import { createWorkflowService } from '@nap/workflow';
import { eventually } from '@nap/testing';
import { sleep } from '@nap/util';
import { createAutomation, greetWorkflow, jobsOf, scheduleMarker } from '../support/automation';

/**
 * Schedule triggers are durable and fire once per due time: a due time that passes while the
 * platform is stopped fires after the restart, and two workflow replicas over the same store fire
 * each due time of several schedules exactly once between them.
 */

async function createSchedule(platform: TestPlatform, token: string, body: Record<string, unknown>): Promise<Trigger> {
  const res = await platform.http('POST', '/operations-manager/triggers', { token, body: { type: 'schedule', ...body } });
  if (res.status !== 200) throw new Error(`Creating a schedule: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: Trigger }).data;
}

// The first and the last test each run a platform of their own (its own data directory and bus) and
// spend most of their time waiting for due times to come: they run side by side. The replicas' test
// runs alone after them: its first due time is a second after its schedules are asked for, which a
// busier process may miss.
it.concurrent(
  'fires a due time that passed while the platform was stopped, once, after the restart',
  async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-schedule-restart-'));
    try {
      let platform = await startTestPlatform({ dataDir });
      let token = await platform.login();
      const automation = await createAutomation(platform, token, greetWorkflow('after-restart'));
      const firstRunAt = Date.now() + 1_500;
      const trigger = await createSchedule(platform, token, {
        name: 'while down',
        actionId: automation,
        firstRunAt,
        processMissedRuns: 'last',
        formData: { who: 'restart' },
      });
      await platform.stop();
      // time passing while nothing runs is the point: the due time is missed
      await sleep(Math.max(0, firstRunAt - Date.now()) + 1_000);

      platform = await startTestPlatform({ dataDir });
      try {
        token = await platform.login();
        const [job] = await eventually(
          'the job of the missed due time',
          async () => {
            const found = await jobsOf(platform, token, 'after-restart');
            return found.length > 0 && found;
          },
          { intervalMs: 200 },
        );
        expect(job?.variables).toMatchObject({ who: 'restart' });
        // a schedule due a second later has fired: the missed due time did not fire again before it
        await scheduleMarker(platform, token, 'after-restart-marker', Date.now() + 1_000);
        expect(await jobsOf(platform, token, 'after-restart')).toHaveLength(1);
        expect((await platform.http('GET', `/operations-manager/triggers/${trigger._id}`, { token })).body).toMatchObject({
          data: { lastRunAt: firstRunAt, nextRunAt: null },
        });
      } finally {
        await platform.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
  60_000,
);

it('fires each due time once with two workflow replicas sharing the store', async () => {
  const platform = await startTestPlatform();
  let replica: RunningService | undefined;
  try {
    const token = await platform.login();
    const store = platform.stores.get('workflow');
    if (store === undefined) throw new Error('the platform has no workflow store');
    // a second engine replica: its own engine, schedule runner and bus endpoints, the same store and bus
    const metrics = createMetrics({ defaultLabels: { component: 'replica-2' } });
    replica = await createWorkflowService(
      {
        bus: platform.bus,
        store,
        logger: createLogger({ name: 'replica-2', level: process.env.NAP_LOG_LEVEL ?? 'silent' }),
        metrics,
        client: createClient(platform.bus, metrics),
        config: loadConfig({ NAP_DATA_DIR: platform.dataDir, NAP_PORT: '0', NAP_SECRET_KEY: 'test-secret-key-of-32-characters' }),
      },
      { serverId: 'replica-2' },
    ).start();
    const status = (await platform.http('GET', '/workflow_engine/workers/status', { token })).body as { replicas: { serverId: string }[] };
    expect(status.replicas.map((r) => r.serverId)).toContain('replica-2');
    expect(status.replicas).toHaveLength(2);

    const schedules: Trigger[] = [];
    const automations: string[] = [];
    for (const n of [1, 2, 3, 4]) automations.push(await createAutomation(platform, token, greetWorkflow(`replicated-${n}`)));
    // every due time fires, a first one that came while a loaded machine was still creating the
    // schedules too (processMissedRuns all): the jobs are then one per second from the first
    const firstRunAt = Date.now() + 1_000;
    for (const [i, automation] of automations.entries()) {
      schedules.push(
        await createSchedule(platform, token, {
          name: `every second ${i + 1}`,
          actionId: automation,
          firstRunAt,
          repeatUnit: 'second',
          repeatFrequency: 1,
          processMissedRuns: 'all',
          formData: { who: `r${i + 1}` },
        }),
      );
    }
    // each schedule fires three due times or more (bounded: the machine may be slow), then stops
    for (const s of schedules) {
      await eventually(
        `three due times of ${s.name}`,
        async () => {
          const stored = ((await platform.http('GET', `/operations-manager/triggers/${s._id}`, { token })).body as { data: Trigger }).data;
          return (stored.lastRunAt ?? 0) >= firstRunAt + 2_000;
        },
        { intervalMs: 200, timeoutMs: 30_000 },
      );
    }
    for (const s of schedules) await platform.http('PATCH', `/operations-manager/triggers/${s._id}`, { token, body: { enabled: false } });
    // a fire that was under way when the schedule was disabled finishes: it moves the schedule on and
    // releases its claim (`fire`), and no replica claims a disabled schedule again
    const ids = schedules.map((s) => s._id);
    await eventually(
      'every fire under way ends',
      async () => (await store.collection('triggers').countDocuments({ _id: { $in: ids }, fire: { $exists: true } })) === 0,
      { intervalMs: 200 },
    );

    const owners = new Set<string>();
    const firstSecond = Math.floor(firstRunAt / 1_000);
    for (const [i, s] of schedules.entries()) {
      const jobs = await jobsOf(platform, token, `replicated-${i + 1}`);
      // a job's id begins with the seconds of the due time it was started for: one job per due time,
      // the due times one second apart from the first, none left out
      const dueSeconds = jobs.map((job) => parseInt(job._id.slice(0, 8), 16)).sort((a, b) => a - b);
      expect({ schedule: s.name, distinct: new Set(dueSeconds).size }).toEqual({ schedule: s.name, distinct: jobs.length });
      expect(dueSeconds).toEqual(dueSeconds.map((_, k) => firstSecond + k));
      expect(jobs.length).toBeGreaterThanOrEqual(3);
      for (const job of jobs) if (job.metrics?.server_id) owners.add(String(job.metrics.server_id));
    }
    expect(owners.size).toBeGreaterThanOrEqual(1);
  } finally {
    await replica?.stop();
    await platform.stop();
  }
}, 60_000);

it.concurrent(
  'skips the due times that come while a schedule is disabled, and resumes at the next one from when it is enabled',
  async () => {
    const platform = await startTestPlatform();
    try {
      const token = await platform.login();
      const store = platform.stores.get('workflow');
      if (store === undefined) throw new Error('the platform has no workflow store');
      const automation = await createAutomation(platform, token, greetWorkflow('frozen'));
      // processMissedRuns all would fire every due time it did not fire: the skipped ones must not count as missed
      const schedule = await createSchedule(platform, token, {
        name: 'every second, frozen a while',
        actionId: automation,
        firstRunAt: Date.now() + 1_000,
        repeatUnit: 'second',
        repeatFrequency: 1,
        processMissedRuns: 'all',
      });
      const stored = async () =>
        ((await platform.http('GET', `/operations-manager/triggers/${schedule._id}`, { token })).body as { data: Trigger }).data;
      await eventually('a first job of the schedule', async () => (await jobsOf(platform, token, 'frozen')).length > 0, {
        intervalMs: 200,
      });

      const disable = await platform.http('PATCH', `/operations-manager/triggers/${schedule._id}`, { token, body: { enabled: false } });
      expect(disable.status).toBe(200);
      await eventually(
        'the fire under way ends',
        async () => (await store.collection('triggers').countDocuments({ _id: schedule._id, fire: { $exists: true } })) === 0,
        { intervalMs: 200 },
      );
      const frozenFrom = (await stored()).nextRunAt;
      if (typeof frozenFrom !== 'number') throw new Error('the disabled schedule has no next due time');
      // three due times come and go while it is disabled
      await sleep(Math.max(0, frozenFrom - Date.now()) + 3_000);
      const before = (await jobsOf(platform, token, 'frozen')).length;

      const enabledAt = Date.now();
      const enable = await platform.http('PATCH', `/operations-manager/triggers/${schedule._id}`, { token, body: { enabled: true } });
      expect(enable.status).toBe(200);
      const resumed = (enable.body as { data: Trigger }).data;
      expect(resumed.enabled).toBe(true);
      expect(resumed.nextRunAt).toBeGreaterThanOrEqual(enabledAt);
      expect(resumed.nextRunAt).toBeLessThan(enabledAt + 2_000);

      // it fires again from there on, and never for a due time of the frozen while
      const after = await eventually(
        'a job of the schedule enabled again',
        async () => {
          const jobs = await jobsOf(platform, token, 'frozen');
          return jobs.length > before && jobs;
        },
        { intervalMs: 200 },
      );
      await platform.http('PATCH', `/operations-manager/triggers/${schedule._id}`, { token, body: { enabled: false } });
      // a job's id begins with the seconds of its due time
      const dueSeconds = after.map((job) => parseInt(job._id.slice(0, 8), 16));
      const second = (ms: number | null | undefined) => Math.floor((ms ?? 0) / 1_000);
      expect({ skipped: dueSeconds.filter((s) => s >= second(frozenFrom) && s < second(resumed.nextRunAt)) }).toEqual({ skipped: [] });
      expect(Math.max(...dueSeconds)).toBeGreaterThanOrEqual(second(resumed.nextRunAt));
    } finally {
      await platform.stop();
    }
  },
  60_000,
);
