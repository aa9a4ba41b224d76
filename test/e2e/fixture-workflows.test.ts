import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JobDocument } from '@nap/contracts';
import { exampleOf, startTestPlatform } from '@nap/testing';
import type { TestPlatform } from '@nap/testing';

/**
 * The real workflows of ../shared/fixtures/itential-assets that need nothing beyond built-in tasks,
 * MOP and JST transformations, run end to end through the HTTP interface: every workflow, JST and
 * MOP command template of the projects imported as exported, each such workflow started with
 * variables made from its inputSchema's examples, manual tasks answered as a person would (success
 * the first time, failure when a loop brings the same task back), on a scaled clock (NAP_TIME_SCALE)
 * so the fixtures' 400 s delays and 12 × 5 min re-attempts pass in moments. docs/fixture-workflows.md
 * is the table of outcomes this test generates (UPDATE_DOCS=1 rewrites it; otherwise it must match).
 */

const ROOT = path.resolve(__dirname, '../..');
const FIXTURES = path.resolve(ROOT, '../shared/fixtures/itential-assets');
const DOC = path.join(ROOT, 'docs/fixture-workflows.md');
const present = existsSync(FIXTURES);
const TIME_SCALE = 10_000;

interface Task {
  name?: string;
  app?: string;
  type?: string;
  summary?: string;
  variables?: { incoming?: Record<string, unknown> };
}
interface Workflow {
  name: string;
  tasks: Record<string, Task>;
  inputSchema?: unknown;
}
interface Project {
  _id: string;
  name: string;
  components: { type: string; document: Record<string, unknown> }[];
}

function projects(): Project[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.project.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(FIXTURES, f), 'utf8')) as Project);
}

const qualified = (p: Project, name: string) => `@${p._id}: ${name}`;
const taskEntries = (wf: Workflow) => Object.entries(wf.tasks).filter(([id]) => id !== 'workflow_start' && id !== 'workflow_end');

/** What kind of tasks a workflow has: `runs` (built-ins, MOP, JSTs), `templates` (also TemplateBuilder), or the other apps it needs. */
function kindOf(wf: Workflow): { kind: 'runs' | 'templates' | 'other'; apps: string[] } {
  const apps = [...new Set(taskEntries(wf).map(([, t]) => String(t.app)))].sort();
  const other = apps.filter((a) => !['WorkFlowEngine', 'MOP', 'TemplateBuilder'].includes(a));
  if (other.length > 0) return { kind: 'other', apps: other };
  return { kind: apps.includes('TemplateBuilder') ? 'templates' : 'runs', apps };
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
}

if (!present) {
  describe('fixture workflows end to end', () => {
    it('did NOT run: the fixtures folder is absent', () => {
      console.warn(`\n${'!'.repeat(100)}\nCONFORMANCE NOT RUN: ${FIXTURES} is absent, so the fixture workflows were not run.\n${'!'.repeat(100)}\n`);
      expect(present).toBe(false);
    });
  });
} else {
  describe('fixture workflows end to end', () => {
    const all = projects();
    const jstIds = new Set(all.flatMap((p) => p.components.filter((c) => c.type === 'transformation').map((c) => String(c.document._id))));
    const workflowNames = new Set(all.flatMap((p) => p.components.filter((c) => c.type === 'workflow').map((c) => qualified(p, String(c.document.name)))));
    const workflows = all.flatMap((p) => p.components.filter((c) => c.type === 'workflow').map((c) => ({ project: p, wf: { ...(c.document as unknown as Workflow), name: qualified(p, String(c.document.name)) } })));
    let platform: TestPlatform;
    let token: string;

    beforeAll(async () => {
      platform = await startTestPlatform({ config: { timeScale: TIME_SCALE } });
      token = await platform.login();
      for (let i = 0; i < workflows.length; i += 20) {
        const res = await platform.http('POST', '/automation-studio/automations/import', { token, body: { automations: workflows.slice(i, i + 20).map((w) => w.wf) } });
        if (res.status !== 200) throw new Error(`Importing workflows failed: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
      }
      const jsts = all.flatMap((p) => p.components.filter((c) => c.type === 'transformation').map((c) => ({ ...c.document, name: qualified(p, String(c.document.name)) })));
      for (let i = 0; i < jsts.length; i += 25) {
        const res = await platform.http('POST', '/transformations/import', { token, body: { transformations: jsts.slice(i, i + 25) } });
        if (res.status !== 200) throw new Error(`Importing transformations failed: ${res.status}`);
      }
      // MOP tasks name command templates as the projects do (plain names); a name two projects share is imported once
      for (const p of all) {
        for (const c of p.components.filter((x) => x.type === 'mopCommandTemplate')) {
          const res = await platform.http('POST', '/mop/import', { token, body: { template: c.document } });
          if (res.status !== 200 && res.status !== 201 && res.status !== 409) throw new Error(`Importing MOP template ${String(c.document.name)} failed: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    });

    afterAll(async () => {
      await platform.stop();
    });

    async function job(id: string): Promise<JobDocument> {
      const res = await platform.http('GET', `/operations-manager/jobs/${id}`, { token });
      return (res.body as { data: JobDocument }).data;
    }

    /** Runs a job to its end (bounded): manual tasks answered success once, failure when a loop brings one back. */
    async function runToEnd(jobId: string, timeoutMs = 20_000): Promise<JobDocument | undefined> {
      const answered = new Set<string>();
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const j = await job(jobId);
        if (['complete', 'error', 'canceled'].includes(j.status)) return j;
        for (const [id, t] of Object.entries(j.tasks)) {
          if (t.status !== 'running' || t.type !== 'manual') continue;
          const finishState = answered.has(id) ? 'failure' : 'success';
          answered.add(id);
          await platform.http('POST', `/operations-manager/jobs/${jobId}/tasks/${id}/finish`, { token, body: { variables: { finish_state: finishState } } });
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      await platform.http('POST', '/operations-manager/jobs/cancel', { token, body: { jobIds: [jobId] } });
      return undefined;
    }

    function outcomeOf(j: JobDocument | undefined, wf: Workflow): string {
      if (j === undefined) return 'did not end within 20 s (canceled)';
      if (j.status === 'complete') return 'complete';
      const first = j.error?.[0] as { task?: string; message?: string } | undefined;
      const task = first?.task === undefined ? undefined : wf.tasks[first.task];
      const where = first?.task === undefined ? '' : ` at ${first.task} (${task?.app ?? ''} ${task?.name ?? ''}${task?.summary ? `: ${task.summary}` : ''})`;
      const taskError = first?.task === undefined ? '' : String(j.tasks[first.task]?.variables?.error ?? '');
      // job ids differ from run to run: the table keeps what a reader needs, not them
      const reason = ((taskError !== '' && taskError !== 'undefined' ? taskError : (first?.message ?? '')).split('\n')[0] ?? '').replace(/Child job [0-9a-f]{24} /, 'Child job ');
      return `error${where}: ${reason.length > 160 ? `${reason.slice(0, 157)}...` : reason}`;
    }

    function missingAssets(wf: Workflow): string[] {
      const out: string[] = [];
      for (const [id, t] of taskEntries(wf)) {
        const incoming = t.variables?.incoming ?? {};
        if (t.app === 'WorkFlowEngine' && t.name === 'transformation' && !jstIds.has(String(incoming.tr_id))) out.push(`JST ${String(incoming.tr_id)} (task ${id})`);
        if (t.app === 'WorkFlowEngine' && t.name === 'childJob' && typeof incoming.workflow === 'string' && !workflowNames.has(incoming.workflow)) out.push(`workflow "${incoming.workflow}" (task ${id})`);
      }
      return out;
    }

    it('runs each workflow of built-ins, MOP and JSTs to an end, and keeps docs/fixture-workflows.md in step', async () => {
      const rows: string[] = [];
      const counts = { complete: 0, error: 0, templates: 0, other: 0, unended: 0 };
      for (const { project, wf } of workflows) {
        const { kind, apps } = kindOf(wf);
        const missing = missingAssets(wf);
        let outcome: string;
        if (kind === 'other') {
          counts.other += 1;
          if (missing.length === 0) continue;
          outcome = `not run: needs ${apps.join(', ')}`;
        } else if (kind === 'templates') {
          counts.templates += 1;
          outcome = 'not run: needs templates (TemplateBuilder, the Jinja2 half of issue 10)';
        } else {
          const variables = exampleOf(wf.inputSchema ?? {}) ?? {};
          const res = await platform.http('POST', `/workflow_engine/startJobWithOptions/${encodeURIComponent(wf.name)}`, { token, body: { options: { type: 'automation', variables } } });
          if (res.status !== 200) {
            outcome = `refused at start: ${res.status} ${(res.body as { message?: string }).message ?? ''}`;
            counts.error += 1;
          } else {
            const ended = await runToEnd((res.body as JobDocument)._id);
            outcome = outcomeOf(ended, wf);
            if (ended === undefined) counts.unended += 1;
            else if (ended.status === 'complete') counts.complete += 1;
            else counts.error += 1;
          }
        }
        rows.push(`| ${cell(project.name)} | ${cell(wf.name.replace(/^@[0-9a-f]+: /, ''))} | ${cell(outcome)} | ${cell(missing.join('; ') || '—')} |`);
      }
      const text = [
        '# Fixture workflows end to end',
        '',
        'Generated by `test/e2e/fixture-workflows.test.ts` (`UPDATE_DOCS=1 npx jest test/e2e/fixture-workflows` rewrites it; the test fails when it is out of step).',
        '',
        `The ${workflows.length} workflows of \`../shared/fixtures/itential-assets\`: those whose tasks are built-ins, MOP and JST transformations are`,
        'started with variables made from their inputSchema examples and run to an end (manual tasks answered success, failure when a loop',
        `brings one back; waits on a clock ${TIME_SCALE} times faster, NAP_TIME_SCALE). Workflows that call other systems (integrations,`,
        'adapters) are listed only when they also reference assets the fixtures do not hold. A transformation task whose `tr_id` names a',
        'JST the fixtures do not hold ends its job with TRANSFORMATION_NOT_FOUND; a childJob may name a workflow outside the projects.',
        '',
        `Ran: ${counts.complete + counts.error + counts.unended} (complete ${counts.complete}, error ${counts.error}, did not end ${counts.unended}); needs templates: ${counts.templates}; needs other systems: ${counts.other}.`,
        '',
        '| project | workflow | outcome | missing assets |',
        '|---|---|---|---|',
        ...rows,
        '',
      ].join('\n');
      if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, text);
      expect(counts.unended).toBe(0);
      expect(readFileSync(DOC, 'utf8')).toBe(text);
    }, 600_000);

    it('ends the job of every transformation task whose tr_id the fixtures do not hold with TRANSFORMATION_NOT_FOUND naming it', async () => {
      const missing = workflows.flatMap(({ wf }) => taskEntries(wf).filter(([, t]) => t.app === 'WorkFlowEngine' && t.name === 'transformation' && !jstIds.has(String(t.variables?.incoming?.tr_id))).map(([id, t]) => ({ wf, id, t })));
      expect(missing).toHaveLength(44);
      expect(new Set(missing.map((m) => m.wf.name)).size).toBe(35);
      for (const [i, { id, t }] of missing.entries()) {
        const name = `missing-jst-${i}`;
        const doc = {
          name,
          type: 'automation',
          groups: [],
          tasks: { workflow_start: { name: 'workflow_start', groups: [] }, [id]: t, workflow_end: { name: 'workflow_end', groups: [] } },
          transitions: { workflow_start: { [id]: { state: 'success', type: 'standard' } }, [id]: { workflow_end: { state: 'success', type: 'standard' } }, workflow_end: {} },
        };
        expect((await platform.http('POST', '/automation-studio/automations', { token, body: { automation: doc } })).status).toBe(201);
        const res = await platform.http('POST', `/workflow_engine/startJobWithOptions/${name}`, { token, body: { options: { variables: {} } } });
        const ended = await runToEnd((res.body as JobDocument)._id);
        expect(ended?.status).toBe('error');
        expect(ended?.error?.[0]).toMatchObject({ task: id, message: `TRANSFORMATION_NOT_FOUND: No transformation with id or name "${String(t.variables?.incoming?.tr_id)}"` });
      }
    }, 300_000);
  });
}
