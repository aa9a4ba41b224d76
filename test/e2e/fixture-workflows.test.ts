import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { candidateNames, plainName, projectOf } from '@nap/contracts';
import type { JobDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, exampleOf, fixturesAbsent, workflowDocument } from '@nap/testing';
import { APP_SERVICES, MANUAL_BUILTINS } from '@nap/workflow';
import { FIXTURES_DIR, FIXTURES_PRESENT, fixtureProjects, importFixtureProjects, projectMembers } from '../support/fixture-projects';

/**
 * The conformance run of the 157 real workflows of ../shared/fixtures/itential-assets, through the
 * HTTP interface: each project imported as a user imports it (`/automation-studio/projects/import`,
 * members named `@<project id>: <name>`), each workflow started with variables
 * made from its inputSchema's examples, on a clock 10 000 times faster (NAP_TIME_SCALE) so the
 * fixtures' delays and MOP re-attempt waits pass in moments, a person's part (manual tasks) done as a
 * person would. Workflows that need nothing beyond built-ins, MOP, JSTs and templates (themselves and
 * the child workflows they run) run without pins; the others with every integration and adapter task
 * pinned (`options.pinned` by `app.method`).
 *
 * Each must end: complete, or an error of a known category (ERROR_CATEGORIES: its own logic on pinned
 * data or example inputs, or a missing asset — a JST, child workflow or template the fixtures do not
 * hold). The test fails on an engine error, an unknown app or method, an error of no known category,
 * a job left running or one that does not start, and when docs/fixture-workflows.md — the table of
 * outcomes it generates — is out of step (`UPDATE_DOCS=1` rewrites it).
 */

const DOC = path.resolve(__dirname, '../../docs/fixture-workflows.md');
const TIME_SCALE = 10_000;
/** Jobs started together; each batch gets BATCH_WAIT_MS of real time to end. */
const BATCH_SIZE = 20;
const BATCH_WAIT_MS = 60_000;
/** What the #10 subset may use: the engine's built-ins (JSTs among them), MOP and templates. */
const SUBSET_APPS = new Set(['WorkFlowEngine', 'MOP', 'TemplateBuilder']);
/** Apps the platform serves itself; every other app is an integration or an adapter, and is pinned. */
const PLATFORM_APPS = new Set(['WorkFlowEngine', ...Object.keys(APP_SERVICES)]);
/**
 * Pins that answer what a workflow waits for, where `{}` would keep it polling for ever: a Microsoft
 * Teams webhook answers `1` once it took the message (Send Notification posts again after a delay until then).
 */
const SUCCESS_ANSWERS: Record<string, Record<string, unknown>> = { 'Msteams.createNotification': { result: { response: 1 } } };
/**
 * Inputs the schema gives no example for, where a made-up value would keep the workflow looping for
 * ever: Restore Archived Jobs and Tasks restores collections until its counter equals
 * `numberOfArchivedCollections` (declared as any type; the first type, an array, is never equal).
 */
const INPUTS: Record<string, Record<string, unknown>> = {
  'Itential Platform Workflow Utilities/Restore Archived Jobs and Tasks': { numberOfArchivedCollections: 1 },
};
/** Task errors the run must never show: the engine failed, or it does not know the app or method. */
const ENGINE_ERROR = /^INTERNAL\b|has no built-in task|No service of this platform/;
const UNKNOWN_APP_OR_METHOD = /^(TASK_APP_UNKNOWN|TASK_METHOD_UNKNOWN)\b|has no operation/;

/**
 * Every way a fixture workflow is known to end in error, each understood and explained in the legend.
 * A job error that fits none of them fails the test as unexplained: it is NAP's to fix or to explain here.
 * `asset`: the error names an asset the fixtures do not hold. `at`: the task (app and method) the first error is at, when it matters.
 */
interface ErrorCategory {
  name: string;
  asset: boolean;
  message: RegExp;
  at?: string;
  legend: string;
}
const ERROR_CATEGORIES: readonly ErrorCategory[] = [
  {
    name: 'missing JST',
    asset: true,
    message: /^TRANSFORMATION_NOT_FOUND\b/,
    legend: 'a transformation task names a JST the fixtures do not hold (`TRANSFORMATION_NOT_FOUND` naming the id); the job ends there.',
  },
  {
    name: 'missing workflow',
    asset: true,
    message: /^WORKFLOW_NOT_FOUND\b/,
    legend:
      "a childJob task names a workflow the fixtures do not hold (`WORKFLOW_NOT_FOUND` naming every name tried: the calling project's member, then the plain name); the job ends there.",
  },
  {
    name: 'missing template',
    asset: true,
    message: /^TEMPLATE_NOT_FOUND\b/,
    legend:
      'a template task names a template that does not exist: the inputSchema\'s example ("Template name 1") is a placeholder for the user\'s own.',
  },
  {
    name: 'missing gateway role',
    asset: true,
    message: /^RUNNER_NOT_FOUND\b/,
    legend:
      "an `AGManager` task runs an Ansible role of the original platform's gateway (`itential_cli`) that this platform's device gateway does not hold.",
  },
  {
    name: 'query finds nothing',
    asset: false,
    message: /^No transition available from the completed tasks$/,
    at: 'WorkFlowEngine query',
    legend:
      'a `query` task looks for a member of a pinned answer (`{}`) or of an empty result, finds nothing and ends with failure (`pass_on_null` false), and the workflow has no failure transition from it and reaches workflow_end no other way, so the job ends in error naming the query.',
  },
  {
    name: 'JST on pinned data',
    asset: false,
    message: /^TRANSFORMATION_STEP_FAILED\b/,
    legend:
      'a JST step (an `Array` method, mostly) receives `undefined` where it reads a member of a pinned answer (`{}`); the error names the step and method.',
  },
  {
    name: 'JST refuses its incoming',
    asset: false,
    message: /^TRANSFORMATION_INCOMING_INVALID\b/,
    legend:
      "a transformation task with `validateIncoming` gets a value its JST's incoming schema refuses: " +
      'Push Configuration to Device - IAG passes the rendered text where its JST declares an object holding it.',
  },
  {
    name: 're-attempts exhausted',
    asset: false,
    message: /^MOP_REATTEMPTS_EXHAUSTED\b/,
    legend:
      "the device of the example inputs is not in the inventory, so the connection test fails and the workflow re-attempts (on the scaled clock) until MOP's limit of 12.",
  },
  {
    name: 'not in the inventory',
    asset: false,
    message: /^(DEVICE_NOT_FOUND|DEVICE_GROUP_NOT_FOUND)\b/,
    legend:
      'a device task names a device or device group of the example inputs ("group1") that the device gateway\'s inventory does not hold.',
  },
  {
    name: 'childJob names no workflow',
    asset: false,
    message: /^Incoming "workflow" of childJob must name a workflow\b/,
    legend: "the fixture leaves the childJob's workflow empty (Chunk Array Wrapper is a template whose user picks the workflow to run).",
  },
];

type Task = {
  name?: string;
  app?: string;
  type?: string;
  summary?: string;
  status?: string;
  variables?: { incoming?: Record<string, unknown>; outgoing?: Record<string, unknown>; error?: unknown };
};
type Workflow = Record<string, unknown> & { name: string; tasks: Record<string, Task>; inputSchema?: Record<string, unknown> };
type Job = JobDocument & { tasks: Record<string, Task> };

const OUTCOMES = [
  'complete',
  'error',
  'missing asset',
  'unexplained error',
  'engine error',
  'unknown app or method',
  'left running',
  'not started',
] as const;
type Outcome = (typeof OUTCOMES)[number];
const ALLOWED: ReadonlySet<Outcome> = new Set(['complete', 'error', 'missing asset']);

interface Row {
  project: string;
  workflow: string;
  /** Apps beyond the #10 subset the workflow and its children call; empty for the subset. */
  needs: string[];
  outcome: Outcome;
  /** The error category ({@link ERROR_CATEGORIES}) of an error or a missing asset. */
  category?: string;
  detail: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function cell(text: string, max = 220): string {
  const one = text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The workflow a childJob task names, as the engine resolves it (studio's rule, {@link candidateNames}). */
function childOf(byName: ReadonlyMap<string, Workflow>, caller: string, named: string): Workflow | undefined {
  return candidateNames(named, caller)
    .map((n) => byName.get(n))
    .find((w) => w !== undefined);
}

/** Apps outside the #10 subset that a workflow calls, itself or through the child workflows it runs. */
function needsOf(workflows: Workflow[]): Map<string, string[]> {
  const byName = new Map(workflows.map((w) => [w.name, w]));
  const memo = new Map<string, Set<string>>();
  const visit = (wf: Workflow, trail: Set<string>): Set<string> => {
    const known = memo.get(wf.name);
    if (known !== undefined) return known;
    const apps = new Set<string>();
    if (trail.has(wf.name)) return apps;
    trail.add(wf.name);
    for (const t of Object.values(wf.tasks)) {
      if (typeof t.app === 'string' && t.app !== '' && !SUBSET_APPS.has(t.app)) apps.add(t.app);
      const named = t.variables?.incoming?.workflow;
      const child = t.name === 'childJob' && typeof named === 'string' ? childOf(byName, wf.name, named) : undefined;
      if (child !== undefined) for (const app of visit(child, trail)) apps.add(app);
    }
    trail.delete(wf.name);
    memo.set(wf.name, apps);
    return apps;
  };
  return new Map(workflows.map((w) => [w.name, [...visit(w, new Set())].sort()]));
}

/** One pin per integration or adapter `app.method`: each outgoing variable of the task answers an empty object. */
function pinsOf(workflows: Workflow[]): Record<string, Record<string, unknown>> {
  const pins: Record<string, Record<string, unknown>> = {};
  for (const task of workflows.flatMap((w) => Object.values(w.tasks))) {
    if (typeof task.app !== 'string' || task.app === '' || PLATFORM_APPS.has(task.app)) continue;
    const pin = (pins[`${task.app}.${String(task.name)}`] ??= {});
    for (const name of Object.keys(task.variables?.outgoing ?? {})) pin[name] = {};
  }
  return { ...pins, ...SUCCESS_ANSWERS };
}

/** Ajv coerces scalars to the schema's types in place (the F5 examples give ports as text). */
const coercing = new Ajv({ strict: false, coerceTypes: true, validateFormats: false });

/**
 * The editor of the platform being replaced declares an input it knows nothing about as any JSON type
 * (`["array", "boolean", "null", "number", "object", "string"]`); a person fills such a field in with
 * text, so without an example it gets its own name as text (not the empty array of the first type).
 */
function asPersonFillsIn(schema: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(schema.properties)) return schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, p]) => [
      name,
      isObject(p) &&
      Array.isArray(p.type) &&
      p.type.length >= 6 &&
      p.type.includes('string') &&
      p.examples === undefined &&
      p.default === undefined
        ? { ...p, examples: [name] }
        : p,
    ]),
  );
  return { ...schema, properties };
}

/** Job variables from the workflow's inputSchema examples, scalars coerced to their declared types. */
function inputsOf(wf: Workflow): Record<string, unknown> {
  const value = exampleOf(asPersonFillsIn(wf.inputSchema ?? {}));
  const variables = isObject(value) ? value : {};
  if (isObject(wf.inputSchema)) coercing.compile(wf.inputSchema)(variables);
  return variables;
}

function classify(message: string, at: string): { outcome: Outcome; category?: string } {
  if (ENGINE_ERROR.test(message)) return { outcome: 'engine error' };
  if (UNKNOWN_APP_OR_METHOD.test(message)) return { outcome: 'unknown app or method' };
  const category = ERROR_CATEGORIES.find((c) => c.message.test(message) && (c.at === undefined || c.at === at));
  if (category === undefined) return { outcome: 'unexplained error' };
  return { outcome: category.asset ? 'missing asset' : 'error', category: category.name };
}

function renderTable(rows: Row[]): string {
  const count = (of: Row[]) =>
    OUTCOMES.map((o) => [o, of.filter((r) => r.outcome === o).length] as const)
      .filter(([, n]) => n > 0)
      .map(([o, n]) => `${o} ${n}`)
      .join(', ');
  const subset = rows.filter((r) => r.needs.length === 0);
  return [
    '# Fixture workflows end to end',
    '',
    'Generated by `test/e2e/fixture-workflows.test.ts` (`UPDATE_DOCS=1 npx jest test/e2e/fixture-workflows` rewrites it; the test fails when it is out of step).',
    '',
    `The ${rows.length} workflows of \`../shared/fixtures/itential-assets\`, run through the HTTP interface. Each project is`,
    'imported as a user imports it (`POST /automation-studio/projects/import`): its workflows, JSTs, templates and MOP command',
    'templates become members of the project (`@<project id>: <name>`), and a childJob task that names a workflow by its plain',
    "name runs the member of its own project. Each workflow is started with variables made from its inputSchema's examples (scalars coerced",
    'to the declared type where an example disagrees; an input declared of any type without an example gets its own name as',
    'text, as a person fills it in), on a clock 10 000 times faster (`NAP_TIME_SCALE`), manual tasks',
    'answered as a person would (success the first time a task asks, failure when a loop brings it back).',
    '',
    '- **needs**: the apps beyond built-ins, MOP, JSTs and templates that the workflow calls, itself or through the child',
    '  workflows it runs. Those marked "—" are the workflows of issue 10: they run with nothing pinned. Every other one runs',
    '  with every integration and adapter task pinned (`options.pinned` by `app.method`, each outgoing variable answering',
    '  `{}`; child jobs inherit the pins); device apps (`AutomationGateway`, `AGManager`, `ConfigurationManager`) are',
    "  served by the platform's own device gateway and are not pinned.",
    '- **complete**: reached workflow_end.',
    '- **error** and **missing asset**: ended in error; the first error is shown (where and why, followed into the child job',
    '  that failed) with its category. Every category is one of these (a job error of no category fails the test):',
    '',
    '| outcome | category | workflows | what happens |',
    '|---|---|---|---|',
    ...ERROR_CATEGORIES.map(
      (c) =>
        `| ${c.asset ? 'missing asset' : 'error'} | ${c.name} | ${rows.filter((r) => r.category === c.name).length} | ${c.legend.replace(/\|/g, '\\|')} |`,
    ),
    '',
    'Never allowed (the test fails): an engine error, an unknown app or method, an unexplained error, a job left running, a',
    'job that does not start.',
    '',
    `All ${rows.length}: ${count(rows)}.`,
    '',
    `Needing only built-ins, MOP, JSTs and templates (issue 10), run without pins: ${subset.length} (${count(subset)}).`,
    '',
    '| project | workflow | needs | outcome | where and why |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${cell(r.project)} | ${cell(r.workflow)} | ${r.needs.length === 0 ? '—' : cell(r.needs.join(', '))} | ${r.category === undefined ? r.outcome : `${r.outcome}: ${r.category}`} | ${cell(r.detail)} |`,
    ),
    '',
  ].join('\n');
}

if (!FIXTURES_PRESENT) {
  describe('fixture workflows end to end', () => {
    it('did NOT run: the fixtures folder is absent', () => {
      fixturesAbsent(FIXTURES_DIR, 'the run of the 157 fixture workflows');
      expect(existsSync(FIXTURES_DIR)).toBe(false);
    });
  });
} else {
  describe('fixture workflows end to end', () => {
    const all = fixtureProjects();
    const projectNames = new Map(all.map((p) => [p._id, p.name]));
    const workflows = projectMembers(all, 'workflow').map((m) => m.doc as Workflow);
    const jstIds = new Set(projectMembers(all, 'transformation').map((m) => String(m.doc._id)));
    let platform: TestPlatform;
    let token: string;

    beforeAll(async () => {
      platform = await startTestPlatform({ config: { timeScale: TIME_SCALE } });
      token = await platform.login();
      await importFixtureProjects(platform, token, all);
    }, 120_000);

    afterAll(async () => {
      await platform?.stop();
    });

    async function jobOf(id: string): Promise<Job> {
      const res = await platform.http('GET', `/operations-manager/jobs/${id}`, { token });
      return (res.body as { data: Job }).data;
    }

    const asked = new Set<string>();

    /** Finishes every manual task waiting in any running job (child jobs too): success the first time, failure when it asks again. */
    async function actAsPerson(): Promise<void> {
      const res = await platform.http('GET', '/operations-manager/jobs?equals[status]=running&limit=500', { token });
      for (const job of (res.body as { items?: Job[] }).items ?? []) {
        for (const [id, task] of Object.entries(job.tasks)) {
          const manual = task.type === 'manual' || (task.app === 'WorkFlowEngine' && MANUAL_BUILTINS.has(String(task.name)));
          if (task.status !== 'running' || !manual) continue;
          const key = `${job._id}/${id}`;
          const again = asked.has(key);
          asked.add(key);
          await platform.http('POST', `/operations-manager/jobs/${job._id}/tasks/${id}/finish`, {
            token,
            body: { variables: { finish_state: again ? 'failure' : 'success' } },
          });
        }
      }
    }

    /** Starts jobs, acts as a person until each has ended or the bound passes, and cancels what is left. */
    async function runJobs(
      starts: { key: string; workflow: string; options: Record<string, unknown> }[],
    ): Promise<Map<string, Job | string>> {
      const ended = new Map<string, Job | string>();
      for (let i = 0; i < starts.length; i += BATCH_SIZE) {
        const open = new Map<string, string>();
        for (const s of starts.slice(i, i + BATCH_SIZE)) {
          const res = await platform.http('POST', `/workflow_engine/startJobWithOptions/${encodeURIComponent(s.workflow)}`, {
            token,
            body: { options: s.options },
          });
          if (res.status === 200) open.set(s.key, (res.body as Job)._id);
          else ended.set(s.key, `${res.status} ${(res.body as { message?: string }).message ?? JSON.stringify(res.body)}`);
        }
        // a job still open after the bound is recorded as it is and canceled below, not failed here
        await eventually(
          'the end of every job of the batch',
          async () => {
            await actAsPerson();
            for (const [key, id] of open) {
              const job = await jobOf(id);
              if (job.status !== 'running' && job.status !== 'paused') {
                ended.set(key, job);
                open.delete(key);
              }
            }
            return open.size === 0;
          },
          { timeoutMs: BATCH_WAIT_MS, intervalMs: 50 },
        ).catch(() => undefined);
        for (const [key, id] of open) {
          ended.set(key, await jobOf(id));
          await platform.http('POST', '/operations-manager/jobs/cancel', { token, body: { jobIds: [id] } });
        }
      }
      return ended;
    }

    /** Where and why a job ended in error, followed into the child job that failed. */
    async function cause(job: Job, trail: string[] = []): Promise<{ message: string; at: string; detail: string }> {
      const first = job.error?.[0];
      if (first === undefined)
        return {
          message: 'INTERNAL: the job ended in error without an error entry',
          at: '',
          detail: `${job.status} without an error entry`,
        };
      const task = job.tasks[first.task];
      const taskError = typeof task?.variables?.error === 'string' && task.variables.error !== '' ? task.variables.error : undefined;
      const details = task?.variables?.outgoing?.job_details;
      const failedChild = (Array.isArray(details) ? details : [details]).find(
        (d): d is { _id: string } => isObject(d) && typeof d._id === 'string' && (d.status === 'error' || d.status === 'canceled'),
      );
      if (task?.name === 'childJob' && failedChild !== undefined) {
        const child = await jobOf(failedChild._id);
        return cause(child, [...trail, `${first.task} → ${plainName(String(child.name))}`]);
      }
      const message = taskError ?? first.message;
      const where =
        task === undefined
          ? first.task
          : `${first.task} (${String(task.app)} ${String(task.name)}${task.summary ? ` "${task.summary}"` : ''})`;
      const via = trail.length > 0 ? `via ${trail.join(', ')}: ` : '';
      // job ids differ from run to run: the table leaves them out so that it stays the same
      const detail = `${via}at ${where}: ${message.split('\n')[0] ?? ''}`.replace(
        /\b[0-9a-f]{24}\b(?= of workflow)|(?<=\bjob ")[0-9a-f]{24}(?=")/g,
        '…',
      );
      return { message, at: task === undefined ? '' : `${String(task.app)} ${String(task.name)}`, detail };
    }

    it(
      'runs each of the 157 workflows to an end of its own and keeps docs/fixture-workflows.md in step',
      async () => {
        expect(workflows).toHaveLength(157);
        const needs = needsOf(workflows);
        const pins = pinsOf(workflows);
        const ended = await runJobs(
          workflows.map((wf) => ({
            key: wf.name,
            workflow: wf.name,
            options: {
              description: 'fixture conformance',
              variables: { ...inputsOf(wf), ...INPUTS[`${projectNames.get(projectOf(wf.name) ?? '') ?? ''}/${plainName(wf.name)}`] },
              ...((needs.get(wf.name) ?? []).length > 0 ? { pinned: pins } : {}),
            },
          })),
        );
        const rows: Row[] = [];
        for (const wf of workflows) {
          const result = ended.get(wf.name);
          const base = {
            project: projectNames.get(projectOf(wf.name) ?? '') ?? '',
            workflow: plainName(wf.name),
            needs: needs.get(wf.name) ?? [],
          };
          if (typeof result === 'string' || result === undefined) rows.push({ ...base, outcome: 'not started', detail: result ?? '' });
          else if (result.status === 'complete') rows.push({ ...base, outcome: 'complete', detail: '' });
          else if (result.status === 'running' || result.status === 'paused') {
            const running = Object.entries(result.tasks)
              .filter(([, t]) => t.status === 'running')
              .map(([id, t]) => `${id} ${String(t.app)} ${String(t.name)}`);
            rows.push({ ...base, outcome: 'left running', detail: `still running after ${BATCH_WAIT_MS / 1000} s: ${running.join(', ')}` });
          } else {
            const { message, at, detail } = await cause(result);
            rows.push({ ...base, ...classify(message, at), detail });
          }
        }
        const table = renderTable(rows);
        if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, table);
        expect(rows.filter((r) => !ALLOWED.has(r.outcome))).toEqual([]);
        expect(existsSync(DOC) ? readFileSync(DOC, 'utf8') : '(missing: run UPDATE_DOCS=1 npx jest test/e2e/fixture-workflows)').toBe(
          table,
        );
      },
      10 * 60_000,
    );

    it('ends the job of every transformation task whose tr_id the fixtures do not hold with TRANSFORMATION_NOT_FOUND naming it', async () => {
      const missing = workflows.flatMap((wf) =>
        Object.entries(wf.tasks)
          .filter(([, t]) => t.app === 'WorkFlowEngine' && t.name === 'transformation' && !jstIds.has(String(t.variables?.incoming?.tr_id)))
          .map(([id, t]) => ({ wf, id, t })),
      );
      expect(missing).toHaveLength(44);
      expect(new Set(missing.map((m) => m.wf.name)).size).toBe(35);
      const starts = [];
      for (const [i, { id, t }] of missing.entries()) {
        const name = `missing-jst-${i}`;
        // the task alone, its variableMap emptied: its references point at tasks this workflow does not have
        const alone = {
          ...t,
          name: 'transformation',
          variables: { ...t.variables, incoming: { ...t.variables?.incoming, variableMap: {} } },
        };
        const doc = workflowDocument(name, { [id]: alone }, [
          ['workflow_start', id],
          [id, 'workflow_end'],
        ]);
        expect((await platform.http('POST', '/automation-studio/automations', { token, body: { automation: doc } })).status).toBe(200);
        starts.push({ key: id + String(i), workflow: name, options: { variables: {} } });
      }
      const ended = await runJobs(starts);
      for (const [i, { id, t }] of missing.entries()) {
        const job = ended.get(id + String(i));
        expect(typeof job === 'object' && job.status).toBe('error');
        expect(typeof job === 'object' && job.error?.[0]).toMatchObject({
          task: id,
          message: `TRANSFORMATION_NOT_FOUND: No transformation with id or name "${String(t.variables?.incoming?.tr_id)}"`,
        });
      }
    }, 300_000);
  });
}
