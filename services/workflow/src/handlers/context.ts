import { AppError } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { BusClient } from '@nap/bus';
import type { AutomationDomain } from '../domain/automations';
import type { JobRecord } from '../domain/job-model';
import { canSeeJob } from '../domain/job-model';
import type { JobEngine } from '../engine/job-engine';
import type { AutomationRepository } from '../store/automation-repository';
import type { JobRepository } from '../store/job-repository';
import type { Triggers } from '../triggers/triggers';
import type { WorkerControl } from '../engine/worker-control';

/** What the handlers of the workflow service share. */
export interface WorkflowHandlerContext {
  engine: JobEngine;
  jobs: JobRepository;
  automations: AutomationDomain;
  /** The automations as stored (reads and deletion). */
  automationStore: AutomationRepository;
  triggers: Triggers;
  workers: WorkerControl;
  /** For calls made as the platform rather than as the caller (the group directory). */
  client: BusClient;
}

/** The job, when it exists and the caller may see it: 404 JOB_NOT_FOUND, 403 GROUP_ACCESS_DENIED otherwise. */
export async function visibleJob(jobs: JobRepository, jobId: string, caller: Caller): Promise<JobRecord> {
  const job = await jobs.findById(jobId);
  if (job === null) throw new AppError('JOB_NOT_FOUND', `No job with id "${jobId}"`);
  if (!canSeeJob(job, caller))
    throw new AppError('GROUP_ACCESS_DENIED', `Job "${jobId}" belongs to groups the caller "${caller.username}" is not in`);
  return job;
}
