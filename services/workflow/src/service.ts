import { serve } from '@nap/bus';
import type { Subscription } from '@nap/bus';
import { RELEASE, systemSubject } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { AutomationDomain } from './domain/automations';
import type { JobRecord } from './domain/job-model';
import { JobEngine } from './engine/job-engine';
import type { EngineOptions } from './engine/job-engine';
import { workflowHandlers } from './handlers';
import { AutomationRepository } from './store/automation-repository';
import type { EngineRecord } from './store/engine-registry';
import { ensureCollections } from './store/collections';

/**
 * Subject on which engine replicas tell each other that a job changed in the store (a manual task
 * was finished, a job paused, resumed or canceled, a child job ended): the owner reloads it. Plain
 * publish/subscribe: every replica hears it, only the owner acts.
 */
export const WORKFLOW_WAKE_SUBJECT = systemSubject('workflow', 'wake');

/** Settings of the workflow service: those of its engine (server id, lease, renewal, scan). */
export type WorkflowServiceOptions = EngineOptions;

/**
 * The workflow service: the workflow engine (jobs), the operations manager and the automation
 * catalog. On start it resumes every running job whose owner is gone.
 */
export function createWorkflowService(deps: ServiceDeps, options: WorkflowServiceOptions = {}): ServiceModule & { engine: JobEngine } {
  const { bus, store, logger, metrics, client } = deps;
  const engine = new JobEngine(
    {
      jobs: store.collection<JobRecord>('jobs'),
      engines: store.collection<EngineRecord>('engines'),
      getWorkflow: async (name, caller, from) => (await client.call('studio.getWorkflow', { body: { name, ...(from !== undefined ? { from } : {}) } }, { caller })).body,
      call: async (operationId, input, caller) => (await client.callDynamic(operationId, input, { caller })).body,
      publishEvent: async (subject, payload, headers) => {
        await bus.publishEvent(subject, Buffer.from(JSON.stringify(payload)), headers);
      },
      busConnected: () => bus.isConnected(),
      broadcastWake: (jobId) => bus.publish(WORKFLOW_WAKE_SUBJECT, Buffer.from(jobId)),
      logger: logger.child({ component: 'workflow-engine' }),
    },
    { timeScale: deps.config.timeScale, ...options },
  );
  const automations = new AutomationDomain(new AutomationRepository(store));

  return {
    engine,
    async start(): Promise<RunningService> {
      await ensureCollections(store);
      const wake: Subscription = bus.subscribe(WORKFLOW_WAKE_SUBJECT, (msg) => engine.wake(Buffer.from(msg.data).toString('utf8')));
      bus.onStatus((status) => {
        if (status === 'connected') engine.busReconnected();
      });
      // the engine registers its heartbeat and resumes its jobs before it takes requests
      await engine.start();
      logger.info({ serverId: engine.serverId, resumed: engine.ownedJobs, leaseMs: engine.leaseMs, renewMs: engine.renewMs, scanMs: engine.scanMs }, 'Workflow engine started');
      const handlers = workflowHandlers({ engine, jobs: engine.repository, automations, client });
      const registered = await serve({ bus, service: 'workflow', version: RELEASE, logger, metrics, client, idempotency: deps.idempotency, handlers });
      return {
        name: 'workflow',
        stop: async () => {
          await registered.stop();
          await engine.stop();
          await engine.flushEvents();
          await wake.unsubscribe();
        },
      };
    },
  };
}
