import { SYSTEM_CALLER, hasCode, isAppError } from '@nap/contracts';
import type { Caller, ErrorCode, WorkflowDocument } from '@nap/contracts';
import { TaskInputError } from '../domain/builtins';
import type { Context, Logger } from '@nap/telemetry';
import { errorMessage, isRecord, setOwn, sleep } from '@nap/util';
import { needArray } from '../domain/builtins/types';
import { newJobId } from '../domain/ids';
import { inheritedSecretPaths } from '../domain/job-secrets';
import type { ChildRun } from '../domain/job-model';
import { resolveOperand } from '../domain/references';
import { errorOutcome } from '../domain/task-outcome';
import type { TaskOutcome } from '../domain/task-outcome';
import type { ChildJobSummary, JobRepository } from '../store/job-repository';
import type { StartJobInput } from './job-lifecycle';
import { traceOfJob } from './job-trace';
import type { JobState, RunStep } from './job-state';
import { refusedForSpace, storeOutage, storeRetryDelay } from './store-failures';

/** What child jobs need from the engine around the job. */
export interface ChildJobHost {
  repository: JobRepository;
  /**
   * Reads a workflow document by name as the given caller, named from the workflow `from`, in the
   * parent job's trace (`trace`); WORKFLOW_NOT_FOUND when absent.
   */
  getWorkflow(name: string, caller: Caller, from?: string, trace?: Context): Promise<WorkflowDocument>;
  /** Creates and starts a job (here, a child under an id its parent recorded). */
  startJob(input: StartJobInput): Promise<unknown>;
  /** Descendant jobs one root job may have (`NAP_MAX_JOBS_PER_TREE`); see {@link ChildJobs}. */
  maxJobsPerTree: number;
  log: Logger;
}

/**
 * How deep child jobs may nest: a job's children, their children, … A workflow that runs itself (or
 * two that run each other) would otherwise start jobs without end, faster than anyone can cancel
 * them, and twice as many at each level with a `data_array` of two. The workflows of the platform
 * NAP replaces nest two or three levels.
 */
export const MAX_CHILD_JOB_DEPTH = 10;

/** What lets a job tree hold more descendant jobs, for the errors of the limit. */
const RAISE_TREE_LIMIT = 'NAP_MAX_JOBS_PER_TREE of the workflow service raises the limit';

/**
 * The error text of a childJob task that a limit of its job tree refused: the code first, as other
 * task errors give theirs, so callers and the job's records tell it from other failures.
 */
function treeLimitError(message: string): string {
  const code: ErrorCode = 'JOB_TREE_LIMIT_EXCEEDED';
  return `${code}: ${message}`;
}

/** A child job as the childJob task's `job_details` shows it; `incomplete` for one not created yet. */
type ChildDetail = ChildJobSummary | { _id: string; name?: string; status: 'incomplete' };

function ended(status: string): boolean {
  return status === 'complete' || status === 'error' || status === 'canceled';
}

function failedStatus(status: string): boolean {
  return status === 'error' || status === 'canceled';
}

/**
 * The outcome of a childJob task whose child could not start. A workflow that does not exist is a
 * missing asset, not a failure the workflow's error path can handle: the job ends, naming it (as
 * for TRANSFORMATION_NOT_FOUND). Anything else (variables the child's inputSchema refuses, no
 * access) fails the task with its code, for the error transition.
 */
function startFailure(workflow: string, err: unknown): TaskOutcome {
  if (isAppError(err) && hasCode(err, 'WORKFLOW_NOT_FOUND'))
    return { ...errorOutcome(`${err.code}: ${err.message}`, { job_details: null }), endsJob: true };
  return errorOutcome(
    `Child job of workflow "${workflow}" could not start: ${isAppError(err) ? `${err.code}: ${err.message}` : errorMessage(err)}`,
    { job_details: null },
  );
}

/**
 * childJob: runs a workflow as child jobs of the job, one per item of `data_array` (or one without
 * it), all at once or one after the other (`loopType` sequential). Each child's id is recorded in
 * the parent before the child is created, so a resumed parent never creates one twice. The task
 * finishes when its children have ended (error as soon as one fails, sequentially), with their
 * `job_details`; a child that ends wakes its parent's owner.
 *
 * A job tree (a root job and its descendants at every level) holds at most `maxJobsPerTree`
 * descendants: before it creates any child, the task counts all of its children in the root job's
 * `treeJobs` with one conditional increment in the store (so engines driving jobs of one tree share
 * the bound), and fails, creating none, when that would pass the limit. The count is raised before
 * the first child exists and recorded on the task (`childRun.counted`) in a step written before the
 * first child is created; a resumed task with a child that exists was counted too. An engine that
 * dies after the increment and before that step's write (or a store whose answer to the increment
 * is lost) counts the task's children twice when it resumes: the bound gets stricter, never looser.
 */
export class ChildJobs {
  constructor(
    private readonly state: JobState,
    private readonly host: ChildJobHost,
    private readonly step: RunStep,
  ) {}

  /** Starts a childJob task with its resolved incoming values. */
  start(id: string, incoming: Record<string, unknown>): void {
    const task = this.state.task(id);
    try {
      const workflow = typeof incoming.workflow === 'string' ? incoming.workflow.trim() : '';
      if (workflow === '') throw new TaskInputError('Incoming "workflow" of childJob must name a workflow');
      const depth = (this.state.job.ancestors?.length ?? 0) + 1;
      if (depth > MAX_CHILD_JOB_DEPTH) {
        // no setting raises this one: nesting deeper is a workflow that runs itself, not a larger task
        this.refuse(
          id,
          `Child job of workflow "${workflow}" would be nested ${depth} levels deep, more than the limit of ${MAX_CHILD_JOB_DEPTH} levels (fixed, not a setting): does a workflow run itself without end?`,
        );
        return;
      }
      const raw = (task.variables?.incoming ?? {}).variables;
      const given = isRecord(raw) ? raw : isRecord(incoming.variables) ? incoming.variables : {};
      const base: Record<string, unknown> = {};
      // a job variable nobody set is left out: the child does not have it (its own references to it resolve as unset)
      this.state.resolving(id, (scope) => {
        for (const [name, operand] of Object.entries(given)) {
          const value = resolveOperand(operand, scope);
          if (value !== undefined) setOwn(base, name, value);
        }
      });
      const dataArray = incoming.data_array;
      const looped = Array.isArray(dataArray) || (typeof dataArray === 'string' && dataArray !== '');
      const inputs = looped
        ? needArray(dataArray, 'data_array').map((item) => ({ ...base, ...(isRecord(item) ? item : { item }) }))
        : [base];
      const limit = this.host.maxJobsPerTree;
      if (inputs.length > limit) {
        this.refuse(
          id,
          `Child jobs of workflow "${workflow}" would be ${inputs.length}, one per item of data_array, more than the limit of ${limit} jobs per job tree (NAP_MAX_JOBS_PER_TREE); ${RAISE_TREE_LIMIT}`,
        );
        return;
      }
      const run: ChildRun = { workflow, sequential: incoming.loopType === 'sequential', single: !looped, inputs };
      if (inputs.length === 0) {
        this.state.complete(id, { finishState: 'success', outgoing: { job_details: [] } });
        return;
      }
      task.childRun = run;
      task.childJobs = inputs.map((_, iteration) => ({ _id: newJobId(), name: workflow, iteration }));
      this.state.markTask(id);
      this.state.later(() => this.spawn(id));
    } catch (err) {
      this.state.complete(id, errorOutcome(errorMessage(err)));
    }
  }

  /** Fails a childJob task that a limit of its job tree refused, before it planned any child. */
  private refuse(id: string, message: string): void {
    this.state.complete(id, errorOutcome(treeLimitError(message)));
  }

  /**
   * Creates the child jobs of a childJob task that should run now and do not exist yet (a resumed
   * task too). When the store fails meanwhile (a failover; the child may be stored or not), it
   * looks again later, as long as the task waits: a child that exists is not created again.
   */
  spawn(id: string, failures = 0): void {
    const task = this.state.task(id);
    const run = task.childRun;
    const planned = task.childJobs ?? [];
    if (!run || planned.length === 0) return;
    const parentJob = this.state.job;
    // the children known to exist: those found, and those created here
    const created = new Set<string>();
    void (async () => {
      try {
        const existing = await this.host.repository.statusesOf(planned.map((c) => c._id));
        // a child is created only after its task's children were counted: one that exists says they were
        if (run.counted !== true && !(await this.countChildren(id, run, planned.length, existing.size > 0))) return;
        for (const childId of existing.keys()) created.add(childId);
        const caller = parentJob.runAs ?? SYSTEM_CALLER;
        let workflow: WorkflowDocument | undefined;
        for (const child of planned) {
          if (existing.has(child._id)) {
            if (run.sequential && existing.get(child._id) !== 'complete') break;
            continue;
          }
          // a plain name from a project member means that project's member first (studio resolves it)
          workflow ??= await this.host.getWorkflow(
            run.workflow,
            caller,
            parentJob.workflow?.name ?? parentJob.name,
            traceOfJob(parentJob.traceContext),
          );
          const variables = run.inputs[child.iteration ?? 0] ?? {};
          // the parent's secrets it passes on are the child's too, whatever their names there
          const secretPaths = inheritedSecretPaths(parentJob, variables);
          await this.host.startJob({
            workflow,
            variables,
            ...(secretPaths !== undefined ? { secretPaths } : {}),
            caller,
            jobId: child._id,
            parent: {
              link: { job: parentJob._id, task: id, iteration: child.iteration ?? 0 },
              ancestors: parentJob.ancestors ?? [],
              groups: parentJob.groups ?? [],
            },
            ...(parentJob.pinned !== undefined ? { pinned: parentJob.pinned } : {}),
            // the children's task calls belong to the trace of their parent's
            ...(parentJob.traceContext !== undefined ? { traceContext: parentJob.traceContext } : {}),
          });
          created.add(child._id);
          if (run.sequential) break;
        }
      } catch (err) {
        if (storeOutage(err) || refusedForSpace(err)) {
          this.host.log.warn(
            { err, jobId: parentJob._id, taskId: id },
            'The store failed while child jobs were created; the task looks again once it answers',
          );
          await sleep(storeRetryDelay(failures + 1));
          void this.step(() => {
            if (this.state.job.tasks[id]?.status !== 'running') return;
            this.spawn(id, failures + 1);
            // a child stored before the failure may have ended already, telling no one
            this.checkSoon();
          });
          return;
        }
        void this.step(() => {
          const failed = this.state.job.tasks[id];
          if (failed?.status !== 'running') return;
          // a child refused (no access, variables its inputSchema refuses) was never created: the task
          // lists the children that exist, and the refusal is its error
          failed.childJobs = (failed.childJobs ?? []).filter((c) => created.has(c._id));
          this.state.complete(id, startFailure(run.workflow, err));
        });
      }
    })();
  }

  /**
   * Counts the task's `count` children in its job tree (see {@link ChildJobs}), unless
   * `countedBefore` (a child of the task exists), and records that it did in the task's next step.
   * When the tree has no room for them, fails the task (it created none of them) naming the limit,
   * and answers false.
   */
  private async countChildren(id: string, run: ChildRun, count: number, countedBefore: boolean): Promise<boolean> {
    const job = this.state.job;
    const rootId = job.ancestors?.[0] ?? job._id;
    const limit = this.host.maxJobsPerTree;
    const answer = countedBefore ? ({ counted: true } as const) : await this.host.repository.countTreeJobs(rootId, count, limit);
    if (answer.counted) {
      run.counted = true;
      // written before any child is created: a resumed task then never counts its children again
      let running = true;
      await this.step(() => {
        const task = this.state.job.tasks[id];
        running = task?.status === 'running';
        // after a reload the task is the stored one, and its run another object
        if (!running || !task?.childRun) return;
        task.childRun.counted = true;
        this.state.markTask(id);
      });
      // a step that failed to write leaves the task running: its children are created all the same
      return running;
    }
    const held =
      answer.total === null
        ? `its root job "${rootId}" no longer exists`
        : `the tree of root job "${rootId}" has ${answer.total} descendant jobs already`;
    const message = treeLimitError(
      `Child jobs of workflow "${run.workflow}" were refused: ${count} more would pass the limit of ${limit} jobs per job tree (NAP_MAX_JOBS_PER_TREE); ${held}. ${RAISE_TREE_LIMIT}`,
    );
    void this.step(() => {
      const failed = this.state.job.tasks[id];
      if (failed?.status !== 'running') return;
      failed.childJobs = [];
      this.state.complete(id, errorOutcome(message, { job_details: null }));
    });
    return false;
  }

  /** After a (re)load: looks at the children of every waiting childJob task in a step of its own. */
  checkSoon(): void {
    const waiting = Object.entries(this.state.job.tasks).filter(
      ([, t]) => t.status === 'running' && t.name === 'childJob' && isRecord(t.childRun),
    );
    if (waiting.length === 0) return;
    this.state.later(() => {
      void this.step(async () => {
        for (const [id] of waiting) await this.check(id);
      });
    });
  }

  /** Finishes a childJob task when its children ended, or starts the next one of a sequential loop. */
  private async check(id: string): Promise<void> {
    const task = this.state.job.tasks[id];
    const run = task?.childRun;
    if (!task || task.status !== 'running' || !run) return;
    const planned = task.childJobs ?? [];
    const found = new Map((await this.host.repository.childSummaries(planned.map((c) => c._id))).map((d) => [d._id, d]));
    const details: ChildDetail[] = planned.map((c) => {
      const doc = found.get(c._id);
      return doc
        ? { _id: doc._id, name: doc.name, status: doc.status, variables: doc.variables, ...(doc.error?.length ? { error: doc.error } : {}) }
        : { _id: c._id, name: c.name, status: 'incomplete' };
    });
    const failed = details.some((d) => failedStatus(d.status));
    const allEnded = details.every((d) => ended(d.status));
    if (run.sequential && !failed && !allEnded) {
      const next = details.findIndex((d) => !ended(d.status));
      if (next >= 0 && !found.has(planned[next]?._id ?? '')) this.state.later(() => this.spawn(id));
      return;
    }
    if (!allEnded && !(run.sequential && failed)) return;
    delete task.childRun;
    const jobDetails = run.single ? (details[0] ?? null) : details;
    if (failed) {
      const bad = details.find((d) => failedStatus(d.status));
      this.state.complete(
        id,
        errorOutcome(`Child job ${bad?._id ?? ''} of workflow "${run.workflow}" ended with status ${bad?.status ?? 'error'}`, {
          job_details: jobDetails,
        }),
      );
    } else {
      this.state.complete(id, { finishState: 'success', outgoing: { job_details: jobDetails } });
    }
  }
}
