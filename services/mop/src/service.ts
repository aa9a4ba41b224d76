import { serve } from '@nap/bus';
import { RELEASE, analyticTemplateSchema, commandTemplateSchema, parseAs } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { DeclaredIndexes } from '@nap/store';
import { createRegexPool } from './clients/regex-pool';
import type { MopContext } from './context';
import { registerMopMetrics } from './metrics';
import { createDiffPool } from './engine/diff-pool';
import { ReattemptScheduler } from './engine/reattempt-scheduler';
import { mopHandlers } from './handlers';
import { MOP_INDEXES, ensureCollections } from './store/collections';
import { ReattemptRepository } from './store/reattempts';
import { RunRepository } from './store/runs';
import { TemplateRepository } from './store/templates';

/** Tuning of the mop service. */
export interface MopServiceOptions {
  /** Longest one user-written pattern may run, in ms; default 1000. */
  regexTimeoutMs?: number;
  /** Worker threads evaluating patterns; default the number of cores, at most 4. */
  regexWorkers?: number;
  /** Devices one run works on at once; default 25 (the device gateway applies its own per-device limits). */
  deviceConcurrency?: number;
  /** How many times faster than real time re-attempt waits pass; default the platform's NAP_TIME_SCALE (1). */
  timeScale?: number;
  /** Longest one diff (`POST /mop/diff`, the diffs of a manual task) may take, in ms; default 5000. */
  diffTimeoutMs?: number;
  /** Worker threads running diffs; default 2. */
  diffWorkers?: number;
}

/**
 * The mop service: methods of procedure. Command and analytic templates, runs of them against
 * inventory devices through gateway-devices, the run history, diffs, re-attempts, manual tasks.
 */
export function createMopService(deps: ServiceDeps, options: MopServiceOptions = {}): ServiceModule {
  const { bus, store, logger, metrics, client } = deps;
  return {
    async start(): Promise<RunningService> {
      await ensureCollections(store);
      const pool = createRegexPool({
        jobTimeoutMs: options.regexTimeoutMs ?? 1_000,
        ...(options.regexWorkers !== undefined ? { size: options.regexWorkers } : {}),
      });
      const differ = createDiffPool({
        ...(options.diffTimeoutMs !== undefined ? { timeoutMs: options.diffTimeoutMs } : {}),
        ...(options.diffWorkers !== undefined ? { size: options.diffWorkers } : {}),
      });
      const reattempts = new ReattemptRepository(store);
      const scheduler = new ReattemptScheduler(reattempts, bus, logger);
      const svc: MopContext = {
        templates: new TemplateRepository(store, 'template', (doc, label) => parseAs(commandTemplateSchema, doc, label)),
        analytics: new TemplateRepository(store, 'analytic', (doc, label) => parseAs(analyticTemplateSchema, doc, label)),
        runs: new RunRepository(store, registerMopMetrics(metrics.registry)),
        reattempts,
        scheduler,
        engine: pool,
        differ,
        ruleOptions: {
          describeTimeout: () =>
            `The pattern ran longer than ${pool.jobTimeoutMs} ms and was stopped; simplify it (nested quantifiers such as (a+)+ backtrack without end)`,
        },
        deviceConcurrency: options.deviceConcurrency ?? 25,
        timeScale: options.timeScale ?? deps.config.timeScale,
      };
      const resumed = await scheduler.resume();
      if (resumed > 0) logger.info({ resumed }, 'Resumed waiting re-attempts');
      let registered;
      try {
        registered = await serve({
          bus,
          service: 'mop',
          version: RELEASE,
          logger,
          metrics,
          client,
          idempotency: deps.idempotency,
          handlers: mopHandlers(svc),
          indexes: new DeclaredIndexes(store, MOP_INDEXES),
        });
      } catch (err) {
        scheduler.stop();
        await Promise.all([pool.close(), differ.close()]);
        throw err;
      }
      return {
        name: 'mop',
        async stop() {
          await registered.stop();
          scheduler.stop();
          await Promise.all([pool.close(), differ.close()]);
        },
      };
    },
  };
}
