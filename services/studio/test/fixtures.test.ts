import { createBusClient } from '@nap/bus';
import { UUID_V4_PATTERN, getOperation, validateRequest, validateResponse } from '@nap/contracts';
import type { ImportResult, WorkflowDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { fixturesAbsent } from '@nap/testing';
import { FIXTURES_DIR, FIXTURES_PRESENT, fixtureProjects, importBatches, projectMembers } from '../../../test/support/fixture-projects';
import { describeWithPython, referencePython } from './python';

/**
 * Conformance with what users already have: every workflow, studio template and JSON form of the
 * exported projects in ../shared/fixtures/itential-assets imports through the HTTP interface as it
 * is. Project members are named `@<project id>: <name>` as the projects themselves refer to them
 * (childJob tasks, automations), which also keeps names unique across projects.
 */

const FIXTURES = FIXTURES_DIR;
const present = FIXTURES_PRESENT;
const projects = fixtureProjects;
const membersOf = projectMembers;
const batches = importBatches;

if (!present) {
  describe('conformance with the real itential-assets documents', () => {
    it('did NOT run: the fixtures folder is absent (a failure under CI=true)', () => {
      expect(() => fixturesAbsent(FIXTURES, 'the import of the 157 real workflows, 14 templates and 9 forms')).not.toThrow();
    });
  });
} else {
  describe('conformance with the real itential-assets documents', () => {
    let platform: TestPlatform;
    let admin: string;
    const all = present ? projects() : [];
    const workflows = membersOf(all, 'workflow');

    beforeAll(async () => {
      platform = await startTestPlatform();
      admin = await platform.login();
    });

    afterAll(async () => {
      await platform.stop();
    });

    it('finds the 157 workflows, 14 templates and 9 JSON forms the README lists', () => {
      expect(workflows).toHaveLength(157);
      expect(membersOf(all, 'template')).toHaveLength(14);
      expect(membersOf(all, 'jsonForm')).toHaveLength(9);
    });

    it('accepts every workflow in the body of createAutomation as well', () => {
      const refused = workflows
        .map(({ doc }) => ({
          name: doc.name,
          problems: validateRequest(getOperation('studio.createAutomation'), { body: { automation: structuredClone(doc) } }),
        }))
        .filter((r) => r.problems.length > 0);
      expect(refused).toEqual([]);
    });

    it('imports all 157 workflows as they are, each validated, none refused', async () => {
      const imported: ImportResult['imported'] = [];
      for (const batch of batches(workflows.map((w) => w.doc))) {
        const res = await platform.http('POST', '/automation-studio/automations/import', { token: admin, body: { automations: batch } });
        expect(res.status).toBe(200);
        const body = res.body as ImportResult;
        expect(body.message).toBe(`Imported ${batch.length} of ${batch.length} workflows`);
        expect(validateResponse(getOperation('studio.importAutomations'), body)).toEqual([]);
        imported.push(...body.imported);
      }
      const refused = imported.filter((i) => !i.success).map((i) => `${String(i.original.name)}: ${i.message}`);
      expect(refused).toEqual([]);
      expect(imported).toHaveLength(157);
      for (const [index, item] of imported.entries()) {
        const original = workflows[index]!.doc;
        const created = item.created as WorkflowDocument;
        // the graph is stored exactly as exported: start/end with only name, groups, nodeLocation; tr_id references kept
        expect({ name: created.name, tasks: created.tasks, transitions: created.transitions }).toEqual({
          name: original.name,
          tasks: original.tasks,
          transitions: original.transitions,
        });
        expect(created).toMatchObject({ inputSchema: original.inputSchema, outputSchema: original.outputSchema, created_by: 'admin' });
      }
      const list = await platform.http('GET', '/automation-studio/automations?limit=1', { token: admin });
      expect(list.body).toMatchObject({ total: 157 });
    });

    it('serves an imported workflow to the engine by the name its parent childJob uses', async () => {
      const child = workflows
        .flatMap(({ doc }) =>
          Object.values(doc.tasks as Record<string, { name: string; variables?: { incoming?: { workflow?: unknown } } }>),
        )
        .map((t) => (t.name === 'childJob' ? t.variables?.incoming?.workflow : undefined))
        .find((w): w is string => typeof w === 'string' && w.startsWith('@') && workflows.some((x) => x.doc.name === w));
      expect(child).toBeDefined();
      const bus = createBusClient({ bus: platform.bus });
      const res = await bus.call(
        'studio.getWorkflow',
        { body: { name: child ?? '' } },
        { caller: { id: 'engine', username: 'engine', roles: ['operations'], groups: [] } },
      );
      expect(res.body.name).toBe(child);
      expect(res.body.tasks.workflow_start).toBeDefined();
    });

    it('finds the workflows that run a given child workflow and those that use a given JST', async () => {
      const target = '@66ce026421161b4df2717471: Create VPC';
      const callers = workflows
        .filter(({ doc }) =>
          Object.values(doc.tasks as Record<string, { name: string; variables?: { incoming?: Record<string, unknown> } }>).some(
            (t) => t.name === 'childJob' && t.variables?.incoming?.workflow === target,
          ),
        )
        .map((w) => w.doc.name)
        .sort();
      expect(callers.length).toBeGreaterThan(0);
      const res = await platform.http('GET', `/automation-studio/references-to?target=${encodeURIComponent(target)}&type=workflow`, {
        token: admin,
      });
      expect(res.status).toBe(200);
      expect((res.body as { references: { type: string; name: string }[] }).references.map((r) => r.name).sort()).toEqual(callers);

      const jst = '61b0c093df69ba016dffc47f';
      const users = workflows
        .filter(({ doc }) =>
          Object.values(doc.tasks as Record<string, { name: string; variables?: { incoming?: Record<string, unknown> } }>).some(
            (t) => t.name === 'transformation' && t.variables?.incoming?.tr_id === jst,
          ),
        )
        .map((w) => w.doc.name)
        .sort();
      expect(users.length).toBeGreaterThan(0);
      const jstRefs = await platform.http('GET', `/automation-studio/references-to?target=${jst}&type=transformation`, { token: admin });
      expect((jstRefs.body as { references: { name: string }[] }).references.map((r) => r.name).sort()).toEqual(users);
    });

    it('imports the 14 jinja2 templates as they are and exports them back', async () => {
      const templates = membersOf(all, 'template');
      const res = await platform.http('POST', '/automation-studio/templates/import', {
        token: admin,
        body: { templates: templates.map((t) => t.doc) },
      });
      expect(res.status).toBe(200);
      const body = res.body as ImportResult;
      expect(body.imported.filter((i) => !i.success).map((i) => i.message)).toEqual([]);
      expect(body.message).toBe('Imported 14 of 14 templates');
      const first = templates[0]!.doc;
      const exported = await platform.http('GET', `/automation-studio/templates/${String(first._id)}/export`, { token: admin });
      expect(exported.status).toBe(200);
      expect(exported.body).toMatchObject({
        _id: first._id,
        name: first.name,
        type: first.type,
        template: first.template,
        data: first.data,
        group: first.group,
        createdBy: 'admin',
      });
    });

    it('imports the 9 JSON forms, each with a UUID v4 id, and exports them with operation 19', async () => {
      const forms = membersOf(all, 'jsonForm');
      const res = await platform.http('POST', '/formbuilder/forms/import', { token: admin, body: { forms: forms.map((f) => f.doc) } });
      expect(res.status).toBe(200);
      const body = res.body as ImportResult;
      expect(body.imported.filter((i) => !i.success).map((i) => i.message)).toEqual([]);
      expect(body.message).toBe('Imported 9 of 9 forms');
      for (const [index, item] of body.imported.entries()) {
        const original = forms[index]!.doc;
        const created = item.created as { _id: string; name: string };
        expect(created._id).toMatch(new RegExp(UUID_V4_PATTERN));
        const exported = await platform.http('POST', '/formbuilder/forms/export', {
          token: admin,
          body: { options: { name: original.name } },
        });
        expect(exported.status).toBe(200);
        expect(exported.body).toMatchObject({
          _id: created._id,
          name: original.name,
          id: original.id,
          struct: original.struct,
          schema: original.schema,
          uiSchema: original.uiSchema,
        });
        expect(validateResponse(getOperation('studio.exportForm'), exported.body)).toEqual([]);
      }
    });

    describeWithPython('the 14 jinja2 templates', () => {
      it('render with their own data byte for byte as Python Jinja2 renders them', async () => {
        const templates = membersOf(all, 'template').map(({ doc }) => ({
          name: doc.name,
          template: String(doc.template),
          context: JSON.parse(String(doc.data)) as Record<string, unknown>,
        }));
        const expected = referencePython(
          'import json, sys, jinja2\nprint(json.dumps([jinja2.Template(t["template"]).render(t["context"]) for t in json.load(sys.stdin)]))',
          templates,
        ) as string[];
        expect(expected).toHaveLength(14);
        expect(expected.filter((text) => text.trim() === '')).toEqual([]);
        for (const [i, t] of templates.entries()) {
          const res = await platform.http('POST', `/template_builder/templates/${encodeURIComponent(t.name)}/renderJinja`, {
            token: admin,
            body: { context: t.context },
          });
          expect({ name: t.name, status: res.status, body: res.body }).toEqual({
            name: t.name,
            status: 200,
            body: { renderedTemplate: expected[i] },
          });
        }
      });
    });
  });
}
