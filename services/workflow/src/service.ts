import { createAuditRecorder, serve } from '@nap/bus';
import type { Subscription } from '@nap/bus';
import { RELEASE, systemSubject } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { createSecretBox } from '@nap/runtime';
import { DeclaredIndexes } from '@nap/store';
import { reportRetentionDue } from '@nap/telemetry';
import type { WorkflowContext } from './context';
import type { JobRecord } from './domain/job-model';
import { jobVisibleTo } from './domain/job-model';
import { EventTriggers } from './engine/event-triggers';
import { JobEngine } from './engine/job-engine';
import type { EngineOptions } from './engine/job-engine';
import { JobArchiver, DEFAULT_ARCHIVE_BATCH_JOBS } from './engine/job-archiver';
import { eventsBytes } from './engine/job-events';
import type { ArchiveOptions } from './engine/job-archiver';
import { JobMetricsRecorder } from './engine/job-metrics-recorder';
import { DEFAULT_RETENTION_INTERVAL_MS, JobRetention } from './engine/job-retention';
import { ScheduleRunner } from './engine/schedule-runner';
import { TriggerStarter } from './engine/trigger-starter';
import { WorkerControl } from './engine/worker-control';
import { workflowHandlers } from './handlers';
import { WorkflowLiveSettings } from './config';
import { ArchiveBatchRepository } from './store/archive-batch-repository';
import { ArchiveChunkRepository } from './store/archive-chunk-repository';
import { AutomationRepository } from './store/automation-repository';
import { WORKFLOW_COLLECTIONS, ensureCollections } from './store/collections';
import type { EngineRecord } from './store/engine-registry';
import { JobArchiveRepository } from './store/job-archive-repository';
import { JobRepository } from './store/job-repository';
import type { JobValueRecord } from './store/job-value-repository';
import { ReplicaRepository } from './store/replica-repository';
import { RetentionRepository } from './store/retention-repository';
import { StoredJobSealing } from './store/stored-job-sealing';
import { TriggerRepository } from './store/trigger-repository';
import { WorkerSettingsRepository } from './store/worker-settings-repository';

/**
 * Subject on which engine replicas tell each other that a job changed in the store (a manual task
 * was finished, a job paused, resumed or canceled, a child job ended): the owner reloads it. Plain
 * publish/subscribe: every replica hears it, only the owner acts.
 */
export const WORKFLOW_WAKE_SUBJECT = systemSubject('workflow', 'wake');

/** Subject on which a replica tells the others that the worker setting changed: each reads it at once. */
export const WORKFLOW_WORKERS_SUBJECT = systemSubject('workflow', 'workers');

/** Settings of the workflow service: those of its engine (server id, lease, renewal, scan) and of archiving. */
export type WorkflowServiceOptions = EngineOptions & ArchiveOptions;

/**
 * The workflow service: the workflow engine (jobs), the operations manager (automations, triggers)
 * and the automation catalog. On start it resumes every running job whose owner is gone, follows the
 * platform-wide worker setting, fires due schedules and follows platform events for event triggers.
 */
export function createWorkflowService(deps: ServiceDeps, options: WorkflowServiceOptions = {}): ServiceModule & { engine: JobEngine } {
  const { bus, store, logger, metrics, client } = deps;
  const archiveBatches = new ArchiveBatchRepository(store);
  const jobMetrics = new JobMetricsRecorder(metrics.registry, new JobRepository(store.collection<JobRecord>('jobs')), () =>
    archiveBatches.doneStatusCounts(),
  );
  // what seals secrets in the store: the jobs' and the triggers' form data
  const secrets = createSecretBox(deps.config.secretKey);
  const engine = new JobEngine(
    {
      secrets,
      jobs: store.collection<JobRecord>('jobs'),
      jobValues: store.collection<JobValueRecord>('job_values'),
      engines: store.collection<EngineRecord>('engines'),
      // `trace`: the job's (its start request's), handed on explicitly: the process has no context manager
      getWorkflow: async (name, caller, from, trace) =>
        (await client.call('studio.getWorkflow', { body: { name, ...(from !== undefined ? { from } : {}) } }, { caller, trace })).body,
      call: async (operationId, input, caller, trace) => (await client.callDynamic(operationId, input, { caller, trace })).body,
      publishEvents: async (events) => {
        const data = eventsBytes(events);
        const { seqs, error } = await bus.publishEvents(
          // the bytes are made for the bus alone: handed over, not copied again
          events.map((e, i) => ({ subject: e.subject, data: data[i] as Uint8Array, headers: e.headers, handOver: true })),
        );
        return { published: seqs.length, ...(error !== undefined ? { error } : {}) };
      },
      busConnected: () => bus.isConnected(),
      broadcastWake: (jobId) => bus.publish(WORKFLOW_WAKE_SUBJECT, Buffer.from(jobId)),
      logger: logger.child({ component: 'workflow-engine' }),
      observe: (event, job, payload) => jobMetrics.observe(event, job, payload),
    },
    { timeScale: deps.config.timeScale, ...options },
  );
  const automations = new AutomationRepository(store);
  const triggers = new TriggerRepository(store, secrets);
  const log = logger.child({ component: 'triggers' });
  const triggerStarter = new TriggerStarter({ engine, automations, triggers, client, log, audit: createAuditRecorder(bus) });
  const eventTriggers = new EventTriggers(bus, triggers, engine.repository, triggerStarter, log);
  // schedules fire under the engine's lease: a claim not released within it passes to another replica
  const tickMs = Math.min(1_000, Math.max(50, Math.floor(engine.leaseMs / 3)));
  const schedules = new ScheduleRunner(
    triggers,
    triggerStarter,
    engine.serverId,
    { leaseMs: engine.leaseMs, tickMs, graceMs: Math.max(engine.leaseMs, 2 * tickMs) },
    () => engine.claimsJobs,
    log,
  );
  const settings = new WorkflowLiveSettings();
  const archives = new JobArchiveRepository(store);
  const archiveChunks = new ArchiveChunkRepository(store);
  const archiveLog = logger.child({ component: 'job-archives' });
  // archives are filled under claims that lapse after the engine's lease, as schedules fire
  const archiver = new JobArchiver({
    jobs: engine.repository,
    archives,
    batches: archiveBatches,
    chunks: archiveChunks,
    serverId: engine.serverId,
    timing: { leaseMs: engine.leaseMs, tickMs },
    batchJobs: options.archiveBatchJobs ?? DEFAULT_ARCHIVE_BATCH_JOBS,
    log: archiveLog,
  });
  const retentionDue = new RetentionRepository(store);
  reportRetentionDue(metrics.registry, 'jobs', async () => (await retentionDue.find())?.nextRunAt ?? undefined);
  const retention = new JobRetention({
    retention: retentionDue,
    jobs: engine.repository,
    archives,
    archiver,
    serverId: engine.serverId,
    timing: { leaseMs: engine.leaseMs, tickMs, intervalMs: options.retentionIntervalMs ?? DEFAULT_RETENTION_INTERVAL_MS },
    retentionDays: () => settings.jobRetentionDays,
    audit: createAuditRecorder(bus),
    log: archiveLog,
  });
  // the jobs an earlier release stored with their secrets in clear, sealed once in the background
  const storedSealing = new StoredJobSealing({
    store,
    jobs: engine.repository,
    serverId: engine.serverId,
    leaseMs: engine.leaseMs,
    log: logger.child({ component: 'job-sealing' }),
  });
  const workers = new WorkerControl(
    new WorkerSettingsRepository(store),
    new ReplicaRepository(store),
    engine,
    engine.leaseMs,
    () => bus.publish(WORKFLOW_WORKERS_SUBJECT, new Uint8Array(0)),
    logger.child({ component: 'workers' }),
  );

  return {
    engine,
    async start(): Promise<RunningService> {
      await ensureCollections(store);
      const backfilled = await engine.repository.backfillVisibleTo(jobVisibleTo);
      if (backfilled > 0) logger.info({ jobs: backfilled }, 'Jobs stored by an earlier release got their visibility tokens');
      const sealed = await triggers.sealStoredSecrets();
      if (sealed > 0) logger.info({ triggers: sealed }, 'Triggers stored by an earlier release got the secrets of their formData sealed');
      const wake: Subscription = bus.subscribe(WORKFLOW_WAKE_SUBJECT, (msg) => engine.wake(Buffer.from(msg.data).toString('utf8')));
      bus.onStatus((status) => {
        if (status === 'connected') engine.busReconnected();
      });
      // the worker setting first, so that the engine claims no job while the job worker is deactivated
      await workers.start();
      const workerNews: Subscription = bus.subscribe(
        WORKFLOW_WORKERS_SUBJECT,
        () => void workers.refresh().catch((err: unknown) => logger.warn({ err }, 'Reading the worker setting failed')),
      );
      // the engine registers its heartbeat and resumes its jobs before it takes requests
      await engine.start();
      logger.info(
        { serverId: engine.serverId, resumed: engine.ownedJobs, leaseMs: engine.leaseMs, renewMs: engine.renewMs, scanMs: engine.scanMs },
        'Workflow engine started',
      );
      const svc: WorkflowContext = {
        engine,
        jobs: engine.repository,
        automations,
        triggers,
        triggerStarter,
        eventTriggers,
        workers,
        client,
        archiver,
        archives,
        archiveBatches,
        archiveChunks,
      };
      const registered = await serve({
        bus,
        service: 'workflow',
        version: RELEASE,
        logger,
        metrics,
        client,
        idempotency: deps.idempotency,
        handlers: workflowHandlers(svc),
        indexes: new DeclaredIndexes(store, WORKFLOW_COLLECTIONS),
        settings: settings.live(),
      });
      await eventTriggers.start();
      schedules.start();
      archiver.start();
      await retention.start();
      storedSealing.start();
      return {
        name: 'workflow',
        stop: async () => {
          await registered.stop();
          await storedSealing.stop();
          await retention.stop();
          await archiver.stop();
          await schedules.stop();
          await eventTriggers.stop();
          await workerNews.unsubscribe();
          await workers.stop();
          await engine.stop();
          await engine.flushEvents();
          await wake.unsubscribe();
        },
      };
    },
  };
}
