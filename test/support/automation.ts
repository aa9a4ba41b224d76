import type { JobDocument } from '@nap/contracts';
import type { TestPlatform } from '@nap/standalone';

/**
 * A workflow of built-in tasks that completes without devices: it greets `$var.job.who` into
 * `greeting` (what trigger tests check reached the job), stored in the studio.
 */
export function greetWorkflow(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    type: 'automation',
    groups: [],
    tasks: {
      workflow_start: { name: 'workflow_start', groups: [] },
      workflow_end: { name: 'workflow_end', groups: [] },
      a1: {
        name: 'stringConcat',
        app: 'WorkFlowEngine',
        type: 'operation',
        groups: [],
        variables: { incoming: { str: 'hello ', stringN: '$var.job.who' }, outgoing: { combinedStrings: '$var.job.greeting' } },
      },
    },
    transitions: {
      workflow_start: { a1: { state: 'success', type: 'standard' } },
      a1: { workflow_end: { state: 'success', type: 'standard' } },
      workflow_end: {},
    },
    ...extra,
  };
}

/** Stores a workflow and an automation that runs it; answers the automation id. */
export async function createAutomation(
  platform: TestPlatform,
  token: string,
  workflow: Record<string, unknown>,
  automationName = `${String(workflow.name)} automation`,
): Promise<string> {
  const wf = await platform.http('POST', '/automation-studio/automations', { token, body: { automation: workflow } });
  if (wf.status !== 201) throw new Error(`Creating workflow ${String(workflow.name)}: ${wf.status} ${JSON.stringify(wf.body)}`);
  const automation = await platform.http('POST', '/operations-manager/automations', {
    token,
    body: { automation: { name: automationName, componentType: 'workflows', componentName: workflow.name } },
  });
  if (automation.status !== 201)
    throw new Error(`Creating automation ${automationName}: ${automation.status} ${JSON.stringify(automation.body)}`);
  return (automation.body as { data: { _id: string } }).data._id;
}

/** Polls `GET /operations-manager/jobs/:id` (bounded) until the job is in one of `statuses`. */
export async function waitForJob(
  platform: TestPlatform,
  token: string,
  jobId: string,
  statuses: string[] = ['complete', 'error', 'canceled'],
  timeoutMs = 15_000,
): Promise<JobDocument> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    const res = await platform.http('GET', `/operations-manager/jobs/${jobId}`, { token });
    last = res.body;
    if (res.status === 200) {
      const job = (res.body as { data: JobDocument }).data;
      if (statuses.includes(job.status)) return job;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Job ${jobId} did not reach ${statuses.join(' or ')} within ${timeoutMs} ms: ${JSON.stringify(last).slice(0, 500)}`);
}

/** Waits (bounded) until `check` answers a value, polling. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms`);
}

/** The variables of a job, as a record (the job schema leaves their members open). */
export function variablesOf(job: JobDocument): Record<string, unknown> {
  const value: unknown = job.variables;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
}
