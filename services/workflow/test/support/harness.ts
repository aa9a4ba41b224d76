import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError, SYSTEM_CALLER, candidateNames } from '@nap/contracts';
import type { Caller, WorkflowDocument } from '@nap/contracts';
import type { CallInput } from '@nap/bus';
import { createSecretBox } from '@nap/runtime';
import { createEmbeddedStore } from '@nap/store';
import type { Collection, Doc, EmbeddedStore } from '@nap/store';
import { createLogger } from '@nap/telemetry';
import type { Context } from '@nap/telemetry';
import { eventually } from '@nap/testing';
import { JobEngine } from '../../src';
import type { EngineOptions } from '../../src';
import type { JobRecord } from '../../src/domain/job-model';
import type { LeaseClock } from '../../src/engine/lease-manager';
import type { EngineRecord } from '../../src/store/engine-registry';
import { JobRepository } from '../../src/store/job-repository';
import { JobSealer } from '../../src/store/job-sealer';
import { JobValueRepository } from '../../src/store/job-value-repository';
import type { JobValueRecord } from '../../src/store/job-value-repository';
import { ensureCollections } from '../../src/store/collections';

/** The secret key the harness's engines seal jobs' secrets with (every engine of a store shares it, as replicas share `NAP_SECRET_KEY`). */
export const HARNESS_SECRET_KEY = 'harness-secret-key-of-sixteen';

/** What stands between an engine and its store in a test (a crash switch, a store outage): it wraps each collection. */
export interface StoreFaults {
  wrap<T extends Doc>(collection: Collection<T>): Collection<T>;
}

export interface PublishedEvent {
  subject: string;
  payload: Record<string, unknown>;
}

/**
 * The engine on a real embedded store with workflows kept in memory (the studio service's part), for
 * domain tests that need no bus. Calls to other services go to `services` (operation id → handler).
 */
export interface EngineHarness {
  engine: JobEngine;
  store: EmbeddedStore;
  workflows: Map<string, WorkflowDocument>;
  /** Handlers by operation id; `trace` is the job's trace the call is made in (see JobRecord.traceContext), undefined for none. */
  services: Map<string, (input: CallInput, caller: Caller, trace?: Context) => Promise<unknown>>;
  events: PublishedEvent[];
  /** Takes the bus down (every publication fails, `busConnected` says false) or brings it back (the engine is told). */
  setBusDown(down: boolean): void;
  /** Stores the workflow and starts a job of it as the system caller. */
  run(workflow: WorkflowDocument, variables?: Record<string, unknown>, caller?: Caller): Promise<JobRecord>;
  /** Waits (bounded) until the job is in one of the statuses; returns it. */
  waitFor(jobId: string, statuses: string[], timeoutMs?: number): Promise<JobRecord>;
  /** Waits (bounded) until `check` holds for the job. */
  waitUntil(jobId: string, check: (job: JobRecord) => boolean, what: string, timeoutMs?: number): Promise<JobRecord>;
  stop(): Promise<void>;
  /** Leaves an engine whose store calls hang (a crash switch tripped) without waiting for it: its timers stop, nothing is written. */
  abandon(): void;
}

/** The engine's options, and the clock its leases are timed on (a `TestClock` of `./clock` that the test moves on; the real one unless given). */
export type HarnessOptions = EngineOptions & { clock?: LeaseClock };

/** Engines sharing one store: the store, the workflows, and how a wake reaches every engine. */
export interface SharedStore {
  store: EmbeddedStore;
  workflows: Map<string, WorkflowDocument>;
  wake: (id: string) => void;
}

/** The store and workflows of engine `other`, for another engine on them (a replica); wakes reach no one. */
export function sharedWith(other: EngineHarness): SharedStore {
  return { store: other.store, workflows: other.workflows, wake: () => undefined };
}

/**
 * Starts an engine on a fresh store, or on `shared` (several engines, one store). With `crash`, the
 * engine's store calls go through it, so a test can kill the engine at a chosen point, or fail its store.
 */
export async function startEngineHarness(
  { clock, ...options }: HarnessOptions = {},
  shared?: SharedStore,
  crash?: StoreFaults,
): Promise<EngineHarness> {
  const dir = shared ? undefined : mkdtempSync(path.join(os.tmpdir(), 'nap-wf-'));
  const store = shared?.store ?? createEmbeddedStore({ path: path.join(dir as string, 'db') });
  await ensureCollections(store);
  const workflows = shared?.workflows ?? new Map<string, WorkflowDocument>();
  const services = new Map<string, (input: CallInput, caller: Caller, trace?: Context) => Promise<unknown>>();
  const events: PublishedEvent[] = [];
  const jobs = store.collection<JobRecord>('jobs');
  const wrap = <T extends { _id: string }>(c: Collection<T>): Collection<T> => (crash ? crash.wrap(c) : c);
  const holder: { engine?: JobEngine } = {};
  const busDown = { down: false };
  const engine = new JobEngine(
    {
      jobs: wrap(jobs),
      jobValues: wrap(store.collection<JobValueRecord>('job_values')),
      engines: wrap(store.collection<EngineRecord>('engines')),
      // as studio.getWorkflow resolves names: from a project member, a plain name means that project's member first
      getWorkflow: async (name, _caller, from) => {
        const wf = candidateNames(name, from)
          .map((n) => workflows.get(n))
          .find((w) => w !== undefined);
        if (!wf) throw new AppError('WORKFLOW_NOT_FOUND', `No workflow named "${name}"`);
        return wf;
      },
      call: async (operationId, input, caller, trace) => {
        const handler = services.get(operationId);
        if (!handler) throw new AppError('SERVICE_UNAVAILABLE', `No service answers ${operationId}`);
        return handler(input, caller, trace);
      },
      publishEvents: async (batch) => {
        if (busDown.down) return { published: 0, error: new Error('The bus is down (test)') };
        for (const { subject, payload, seq } of batch) events.push({ subject, payload: { ...payload, seq } });
        return { published: batch.length };
      },
      busConnected: () => !busDown.down,
      broadcastWake: (jobId) => (shared ? shared.wake(jobId) : holder.engine?.wake(jobId)),
      logger: createLogger({ name: 'engine-test', level: process.env.NAP_LOG_LEVEL ?? 'silent' }),
      secrets: createSecretBox(HARNESS_SECRET_KEY),
      ...(clock ? { leaseClock: clock } : {}),
    },
    options,
  );
  holder.engine = engine;
  await engine.start();
  const ready = engine;

  const reader = new JobRepository(
    jobs,
    new JobValueRepository(store.collection<JobValueRecord>('job_values')),
    new JobSealer(createSecretBox(HARNESS_SECRET_KEY)),
  );
  async function waitUntil(jobId: string, check: (job: JobRecord) => boolean, what: string, timeoutMs = 10_000): Promise<JobRecord> {
    return eventually(
      `Job ${jobId} reaching ${what}`,
      async () => {
        // as the engine and the routes read it: large values put back from job_values, secrets opened
        const job = await reader.findById(jobId);
        if (job && check(job)) return job;
        // the job as it is, for the failure message
        throw new Error(
          `it is ${job?.status ?? 'missing'}: ${JSON.stringify(job?.error ?? [])} tasks ${JSON.stringify(Object.fromEntries(Object.entries(job?.tasks ?? {}).map(([id, t]) => [id, t.status])))}`,
        );
      },
      { timeoutMs, intervalMs: 10 },
    );
  }

  return {
    engine: ready,
    store,
    workflows,
    services,
    events,
    setBusDown(down) {
      busDown.down = down;
      if (!down) ready.busReconnected();
    },
    async run(workflow, variables = {}, caller = SYSTEM_CALLER) {
      workflows.set(workflow.name, workflow);
      return ready.startJob({ workflow, variables, caller });
    },
    waitFor: (jobId, statuses, timeoutMs) => waitUntil(jobId, (j) => statuses.includes(j.status), statuses.join(' or '), timeoutMs),
    waitUntil,
    abandon() {
      // a process that dies publishes nothing more: no time to drain the outboxes
      void ready.stop(0);
    },
    async stop() {
      await ready.stop();
      await ready.flushEvents();
      if (!shared) {
        await store.close();
        rmSync(dir as string, { recursive: true, force: true });
      }
    },
  };
}

/** The harnesses a test file starts: each is stopped after its test, the last started first. */
export function stoppedAfterEach(): EngineHarness[] {
  const harnesses: EngineHarness[] = [];
  afterEach(async () => {
    for (const h of harnesses.splice(0).reverse()) await h.stop();
  });
  return harnesses;
}
