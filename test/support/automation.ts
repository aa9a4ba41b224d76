import type { JobDocument, WorkflowDocument } from '@nap/contracts';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';

/**
 * A workflow of built-in tasks that completes without devices: it greets `$var.job.who` into
 * `greeting` (what trigger tests check reached the job), stored in the studio.
 */
export function greetWorkflow(name: string, extra: Partial<WorkflowDocument> = {}): WorkflowDocument {
  return workflowDocument(
    name,
    {
      a1: task('stringConcat', { str: 'hello ', stringN: '$var.job.who' }, { combinedStrings: '$var.job.greeting' }, { type: 'operation' }),
    },
    [
      ['workflow_start', 'a1'],
      ['a1', 'workflow_end'],
    ],
    extra,
  );
}

/** A manual task (ViewData) that waits for a person: a job running it stays running until it is answered or canceled. */
export function waitingTask(): WorkflowDocument['tasks'][string] {
  return {
    name: 'ViewData',
    app: 'WorkFlowEngine',
    type: 'manual',
    groups: [],
    variables: {
      incoming: { header: 'Wait', message: 'Go on?', body: '', variables: '', btn_success: 'Yes', btn_failure: 'No' },
      outgoing: {},
    },
  };
}

/** Stores a workflow and an automation that runs it; answers the automation id. */
export async function createAutomation(
  platform: TestPlatform,
  token: string,
  workflow: WorkflowDocument,
  automationName = `${workflow.name} automation`,
): Promise<string> {
  const wf = await platform.http('POST', '/automation-studio/automations', { token, body: { automation: workflow } });
  if (wf.status !== 200) throw new Error(`Creating workflow ${workflow.name}: ${wf.status} ${JSON.stringify(wf.body)}`);
  const automation = await platform.http('POST', '/operations-manager/automations', {
    token,
    body: { automation: { name: automationName, componentType: 'workflows', componentName: workflow.name } },
  });
  if (automation.status !== 200)
    throw new Error(`Creating automation ${automationName}: ${automation.status} ${JSON.stringify(automation.body)}`);
  return (automation.body as { data: { _id: string } }).data._id;
}

/**
 * What the tests of the platform's clients start jobs through: the greeting workflow `workflow`
 * (see {@link greetWorkflow}), an automation that runs it, and an endpoint trigger `trigger` at
 * `POST /operations-manager/triggers/endpoint/<routeName>` whose body must name `who`.
 */
export async function createGreetingEndpoint(
  platform: TestPlatform,
  token: string,
  { workflow, trigger, routeName }: { workflow: string; trigger: string; routeName: string },
): Promise<void> {
  const actionId = await createAutomation(platform, token, greetWorkflow(workflow));
  const res = await platform.http('POST', '/operations-manager/triggers', {
    token,
    body: {
      name: trigger,
      type: 'endpoint',
      actionId,
      routeName,
      schema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
    },
  });
  if (res.status !== 200) throw new Error(`Creating the endpoint trigger ${trigger}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A job in one line for a failure message: its status and errors, and each task's status and error. */
export function describeJob(job: JobDocument): string {
  const tasks = Object.fromEntries(Object.entries(job.tasks).map(([id, t]) => [id, [t.status, t.variables?.error]]));
  return JSON.stringify({ status: job.status, error: job.error, tasks });
}

/**
 * Reads a job with `read` until `check` holds (bounded). A read that fails is tried again (a
 * service may be down on purpose); a timeout names `what` and shows the job as it was last read.
 */
export function jobReaching(
  what: string,
  read: () => Promise<JobDocument>,
  check: (job: JobDocument) => boolean,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<JobDocument> {
  return eventually(
    what,
    async () => {
      const job = await read();
      if (check(job)) return job;
      throw new Error(describeJob(job));
    },
    options,
  );
}

/** Reads `GET /operations-manager/jobs/:id` until the job is in one of `statuses` (bounded). */
export function waitForJob(
  platform: TestPlatform,
  token: string,
  jobId: string,
  statuses: string[] = ['complete', 'error', 'canceled'],
  timeoutMs = 15_000,
): Promise<JobDocument> {
  const read = async () => {
    const res = await platform.http('GET', `/operations-manager/jobs/${jobId}`, { token });
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    return (res.body as { data: JobDocument }).data;
  };
  return jobReaching(`Job ${jobId} reaching ${statuses.join(' or ')}`, read, (job) => statuses.includes(job.status), { timeoutMs });
}

/** The jobs of a workflow, newest first (500 at most). */
export async function jobsOf(platform: TestPlatform, token: string, workflow: string): Promise<JobDocument[]> {
  const res = await platform.http('GET', `/operations-manager/jobs?equals[name]=${encodeURIComponent(workflow)}&limit=500`, { token });
  return (res.body as { items: JobDocument[] }).items;
}

/**
 * Proves that the schedule runner of a platform with one workflow replica has gone past `dueAt`:
 * a one-off schedule of a workflow of its own (`name`) due then, and its job, waited for. Due
 * schedules fire one tick at a time, each tick in due-time order, so a schedule that was going to
 * fire for a due time before `dueAt` has started its job by then: what a "nothing more fired" check
 * waits for instead of sleeping.
 */
export async function scheduleMarker(platform: TestPlatform, token: string, name: string, dueAt: number): Promise<void> {
  const actionId = await createAutomation(platform, token, greetWorkflow(name));
  const res = await platform.http('POST', '/operations-manager/triggers', {
    token,
    body: { name, type: 'schedule', actionId, firstRunAt: dueAt, formData: { who: 'marker' } },
  });
  if (res.status !== 200) throw new Error(`Creating the marker schedule ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  await eventually(`the job of the marker schedule ${name}`, async () => (await jobsOf(platform, token, name)).length > 0, {
    intervalMs: 200,
    timeoutMs: Math.max(0, dueAt - Date.now()) + 15_000,
  });
}

/** The variables of a job, as a record (the job schema leaves their members open). */
export function variablesOf(job: JobDocument): Record<string, unknown> {
  const value: unknown = job.variables;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
}
