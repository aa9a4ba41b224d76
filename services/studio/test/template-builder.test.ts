import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { JobDocument } from '@nap/contracts';
import { eventually, task, workflowDocument } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { describeWithPython, referencePython } from './python';

/**
 * The template builder through the HTTP interface and the workflow engine: Jinja2 renders and
 * TextFSM parses of studio templates by the real Python libraries, checked against the same
 * libraries called directly (no NAP code in between).
 */

const TEXTFSM_DIR = path.join(__dirname, 'textfsm');
const sample = (file: string) => readFileSync(path.join(TEXTFSM_DIR, file), 'utf8');
/** TextFSM samples of every shape: Filldown, Required, List, Continue.Record, an EOF state, Error, Key, Fillup, state changes. */
const TEXTFSM_SAMPLES = ['filldown-required', 'list-continue-record', 'eof-state', 'key-fillup-states'] as const;

const REFERENCE_JINJA = `
import json, sys, jinja2
cases = json.load(sys.stdin)
print(json.dumps([jinja2.Template(c["template"]).render(c["context"]) for c in cases]))
`;

const REFERENCE_TEXTFSM = `
import io, json, sys, textfsm
out = []
for c in json.load(sys.stdin):
    try:
        out.append({"records": textfsm.TextFSM(io.StringIO(c["template"])).ParseTextToDicts(c["text"])})
    except textfsm.Error as err:
        out.append({"error": str(err)})
print(json.dumps(out))
`;

/** Python semantics users' templates rely on, with what Python Jinja2 3.1.2 renders for them. */
const PYTHON_SEMANTICS = {
  template: [
    '{{ flag }} {{ nothing }} {{ site }} {{ vlans }}',
    '{% for v in vlans if v.id > 10 %}vlan {{ v.id }} {{ v.name | upper }}{% if not loop.last %},{% endif %}{% endfor %}',
    '{% set ns = namespace(total=0) %}{% for v in vlans %}{% set ns.total = ns.total + v.id %}{% endfor %}total={{ ns.total }}',
    '{% for k, v in site.items() | sort %}{{ k }}={{ v }};{% endfor %}',
    '{{ "%-6s|" | format(site.name) }}{{ site.name.startswith("ams") }} {{ site.name.replace("-", "_").title() }} {{ "a,b".split(",") }}',
    '{{ vlans | map(attribute="name") | join(", ") }} {{ [3, 1, 2] | sort(reverse=True) }} {{ 7 // 2 }} {{ 7 / 2 }} {{ 2 ** 10 }}',
    '{% for node in tree recursive %}{{ node.name }}{% if node.children %}({{ loop(node.children) }}){% endif %}{% endfor %}',
    '',
  ].join('\n'),
  context: {
    flag: true,
    nothing: null,
    site: { name: 'ams-1', region: 'eu' },
    vlans: [
      { id: 10, name: 'users' },
      { id: 20, name: 'voice' },
      { id: 30, name: 'mgmt' },
    ],
    tree: [
      {
        name: 'a',
        children: [
          { name: 'b', children: [] },
          { name: 'c', children: [{ name: 'd' }] },
        ],
      },
    ],
  },
  rendered: [
    "True None {'name': 'ams-1', 'region': 'eu'} [{'id': 10, 'name': 'users'}, {'id': 20, 'name': 'voice'}, {'id': 30, 'name': 'mgmt'}]",
    'vlan 20 VOICE,vlan 30 MGMT',
    'total=60',
    'name=ams-1;region=eu;',
    "ams-1 |True Ams_1 ['a', 'b']",
    'users, voice, mgmt [3, 2, 1] 3 3.5 1024',
    'a(bc(d))',
  ].join('\n'),
};

describeWithPython('the template builder', () => {
  let platform: TestPlatform;
  let token: string;
  const saved = process.env.NAP_TEMPLATE_TIMEOUT_MS;

  beforeAll(async () => {
    process.env.NAP_TEMPLATE_TIMEOUT_MS = '1000';
    try {
      platform = await startTestPlatform();
    } finally {
      if (saved === undefined) delete process.env.NAP_TEMPLATE_TIMEOUT_MS;
      else process.env.NAP_TEMPLATE_TIMEOUT_MS = saved;
    }
    token = await platform.login();
  });

  afterAll(async () => {
    await platform?.stop();
  });

  async function createTemplate(name: string, type: 'jinja2' | 'textfsm', template: string): Promise<string> {
    const res = await platform.http('POST', '/automation-studio/templates', {
      token,
      body: { template: { name, type, template, data: '{}', group: 'tests' } },
    });
    if (res.status !== 200) throw new Error(`Creating template ${name} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { data: { _id: string } }).data._id;
  }

  const renderJinja = (name: string, body: unknown) =>
    platform.http('POST', `/template_builder/templates/${encodeURIComponent(name)}/renderJinja`, { token, body });
  const parse = (body: unknown) => platform.http('POST', '/template_builder/parseTemplate', { token, body });

  describe('renderJinja', () => {
    it('renders with Python Jinja2 semantics, byte for byte what Python renders, no trailing newline', async () => {
      await createTemplate('Python semantics', 'jinja2', PYTHON_SEMANTICS.template);
      const res = await renderJinja('Python semantics', { context: PYTHON_SEMANTICS.context });
      expect(res).toMatchObject({ status: 200, body: { renderedTemplate: PYTHON_SEMANTICS.rendered } });
      expect(referencePython(REFERENCE_JINJA, [PYTHON_SEMANTICS])).toEqual([PYTHON_SEMANTICS.rendered]);
    });

    it('finds a template by id, and a project member by its bare name unless several projects have one', async () => {
      const id = await createTemplate('@5f0c1e2d3a4b: VLAN', 'jinja2', 'vlan {{ id }}');
      expect((await renderJinja(id, { context: { id: 7 } })).body).toEqual({ renderedTemplate: 'vlan 7' });
      expect((await renderJinja('VLAN', { context: { id: 8 } })).body).toEqual({ renderedTemplate: 'vlan 8' });
      // the context misspelled: refused, naming the member meant
      expect(await renderJinja('VLAN', { contxt: { id: 8 } })).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_FAILED',
          message: "body must have required property 'context' (it has 'contxt': did you mean 'context'?)",
        },
      });
      await createTemplate('@6a7b8c9d0e1f: VLAN', 'jinja2', 'vlan {{ id }} (other project)');
      const ambiguous = await renderJinja('VLAN', { context: { id: 9 } });
      expect(ambiguous).toMatchObject({
        status: 409,
        body: { code: 'CONFLICT', details: { candidates: ['@5f0c1e2d3a4b: VLAN', '@6a7b8c9d0e1f: VLAN'] } },
      });
      expect((await renderJinja('@6a7b8c9d0e1f: VLAN', { context: { id: 9 } })).body).toEqual({
        renderedTemplate: 'vlan 9 (other project)',
      });
    });

    it('answers 404 for an unknown template, 422 for a textfsm one, 400 without a context', async () => {
      expect(await renderJinja('No such template', { context: {} })).toMatchObject({
        status: 404,
        body: { code: 'TEMPLATE_NOT_FOUND', message: 'No template with name or id "No such template"' },
      });
      await createTemplate('Interfaces fsm', 'textfsm', sample('eof-state.textfsm'));
      expect(await renderJinja('Interfaces fsm', { context: {} })).toMatchObject({
        status: 422,
        body: {
          code: 'TEMPLATE_TYPE_MISMATCH',
          message: 'Template "Interfaces fsm" is a textfsm template, not jinja2; use parseTemplate for it',
        },
      });
      expect(await renderJinja('Python semantics', {})).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_FAILED', details: [expect.objectContaining({ member: 'body.context' })] },
      });
    });

    it('refuses a probe of Python internals with 400 and stops a runaway loop with 422 naming the limit', async () => {
      await createTemplate('Probe', 'jinja2', "{{ ''.__class__.__mro__[1].__subclasses__() }}");
      const probe = await renderJinja('Probe', { context: {} });
      expect(probe).toMatchObject({
        status: 400,
        body: {
          code: 'TEMPLATE_SANDBOX_VIOLATION',
          message:
            "Template \"Probe\" was refused by the sandbox at line 1: access to attribute '__class__' of 'str' object is unsafe; templates cannot reach Python internals",
        },
      });
      await createTemplate('Runaway', 'jinja2', '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}');
      const runaway = await renderJinja('Runaway', { context: {} });
      expect(runaway).toMatchObject({ status: 422, body: { code: 'TEMPLATE_TIMEOUT', details: { limitMs: 1000 } } });
      expect((runaway.body as { message: string }).message).toBe(
        'Template "Runaway" ran longer than the limit of 1000 ms (NAP_TEMPLATE_TIMEOUT_MS) and was stopped; look for a loop that does not end',
      );
      expect((await renderJinja('VLAN', { context: {} })).status).toBe(409);
      expect((await renderJinja('@5f0c1e2d3a4b: VLAN', { context: { id: 1 } })).body).toEqual({ renderedTemplate: 'vlan 1' });
    });

    it('names the line of a syntax error', async () => {
      await createTemplate('Broken', 'jinja2', 'interface {{ name }}\n{% for x in %}');
      expect(await renderJinja('Broken', { context: {} })).toMatchObject({
        status: 422,
        body: {
          code: 'TEMPLATE_RENDER_FAILED',
          message: 'Template "Broken" has a syntax error at line 2: Expected an expression, got \'end of statement block\'',
          details: { kind: 'syntax', line: 2 },
        },
      });
    });
  });

  describe('parseTemplate', () => {
    it('parses every shape of TextFSM template exactly as python3-textfsm does', async () => {
      const cases = TEXTFSM_SAMPLES.map((s) => ({ template: sample(`${s}.textfsm`), text: sample(`${s}.txt`) }));
      const expected = referencePython(REFERENCE_TEXTFSM, cases) as { records: unknown[] }[];
      for (const [i, c] of cases.entries()) {
        const res = await parse(c);
        expect({ sample: TEXTFSM_SAMPLES[i], status: res.status, body: res.body }).toEqual({
          sample: TEXTFSM_SAMPLES[i],
          status: 200,
          body: expected[i]?.records,
        });
      }
      // what those shapes mean, written out for two of them
      expect(expected[1]?.records).toEqual([
        { VLAN_ID: '1', NAME: 'default', STATUS: 'active', INTERFACES: ['Gi0/1', 'Gi0/2', 'Gi0/3', 'Gi0/4'] },
        { VLAN_ID: '10', NAME: 'users', STATUS: 'active', INTERFACES: ['Gi0/5'] },
        { VLAN_ID: '20', NAME: 'voice', STATUS: 'suspended', INTERFACES: [] },
        { VLAN_ID: '99', NAME: 'native', STATUS: 'act/lshut', INTERFACES: ['Gi1/0/1', 'Gi1/0/2'] },
      ]);
      // the EOF state keeps the last, partial neighbour out; Filldown carries the VRF; Fillup fills upwards
      expect(expected[2]?.records).toEqual([
        { NEIGHBOR: '10.0.0.2', STATE: 'Established' },
        { NEIGHBOR: '10.0.0.3', STATE: 'Idle' },
      ]);
      expect(expected[0]?.records).toEqual([
        { VRF: 'default', PREFIX: '10.1.0.0/16', NEXT_HOP: '10.0.0.1', INTERFACE: 'GigabitEthernet0/1' },
        { VRF: 'default', PREFIX: '10.0.0.0/24', NEXT_HOP: '', INTERFACE: 'GigabitEthernet0/1' },
        { VRF: 'mgmt', PREFIX: '192.168.0.0/24', NEXT_HOP: '172.16.0.1', INTERFACE: 'Management0' },
      ]);
      expect((expected[3]?.records as { MTU: string }[]).map((r) => r.MTU)).toEqual(['9000', '9000', '9000']);
    });

    it('parses with a stored textfsm template by name', async () => {
      await createTemplate('Show vlan', 'textfsm', sample('list-continue-record.textfsm'));
      const res = await parse({ name: 'Show vlan', text: sample('list-continue-record.txt') });
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(4);
      expect(await parse({ name: 'Python semantics', text: 'x' })).toMatchObject({ status: 422, body: { code: 'TEMPLATE_TYPE_MISMATCH' } });
    });

    it("answers an Error action and an invalid template with 422 and TextFSM's message", async () => {
      const error = { template: sample('error-action.textfsm'), text: sample('error-action.txt') };
      const [reference] = referencePython(REFERENCE_TEXTFSM, [error]) as { error: string }[];
      expect(reference?.error).toBe(
        'Error: "the device rejected the command". Rule Line: 7. Input Line: % Invalid input detected at \'^\' marker..',
      );
      expect(await parse(error)).toMatchObject({
        status: 422,
        body: {
          code: 'TEMPLATE_PARSE_FAILED',
          message: `The template stopped on the text: ${reference?.error ?? ''}`,
          details: { kind: 'text' },
        },
      });
      const invalid = await parse({ template: 'Value X (\\d+)\n\nNotStart\n  ^${X}\n', text: '1' });
      expect(invalid).toMatchObject({ status: 422, body: { code: 'TEMPLATE_PARSE_FAILED', details: { kind: 'template' } } });
      expect((invalid.body as { message: string }).message).toBe("The template is not a valid TextFSM template: Missing state 'Start'.");
    });

    it('takes name or template, not both and not neither', async () => {
      expect(await parse({ name: 'Show vlan', template: 'Value X (\\d+)\n\nStart\n', text: '1' })).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_FAILED', details: [{ member: 'body.template' }] },
      });
      expect(await parse({ text: '1' })).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    });
  });

  describe('TemplateBuilder workflow tasks', () => {
    /** A TemplateBuilder task with the members the fixture workflows give theirs. */
    const builderTask = (name: string, incoming: Record<string, unknown>, outgoing: Record<string, unknown>) =>
      task(name, incoming, outgoing, {
        app: 'TemplateBuilder',
        summary: name,
        description: name,
        locationType: null,
        location: 'Application',
        actor: 'Pronghorn',
        groups: [],
      });

    it('renderJinjaTemplate and parseTemplate run as tasks of a job, by the names the fixture workflows use', async () => {
      await createTemplate('Show vlan config', 'jinja2', '{% for v in vlans %}{{ v.id }}    {{ v.name }}    active\n{% endfor %}');
      const workflow = workflowDocument(
        'template builder tasks',
        {
          a1: builderTask(
            'renderJinjaTemplate',
            { name: '$var.job.templateName', context: '$var.job.templateVariables' },
            { renderedTemplate: '$var.job.rendered' },
          ),
          b2: builderTask(
            'parseTemplate',
            {
              template: 'Value ID (\\d+)\nValue NAME (\\S+)\n\nStart\n  ^${ID}\\s+${NAME}\\s+active -> Record\n',
              text: '$var.job.rendered',
            },
            { records: '$var.job.records' },
          ),
        },
        [
          ['workflow_start', 'a1'],
          ['a1', 'b2'],
          ['b2', 'workflow_end'],
        ],
        { description: 'render, then parse what was rendered' },
      );
      expect((await platform.http('POST', '/automation-studio/automations', { token, body: { automation: workflow } })).status).toBe(200);
      const variables = {
        templateName: 'Show vlan config',
        templateVariables: {
          vlans: [
            { id: 10, name: 'users' },
            { id: 20, name: 'voice' },
          ],
        },
      };
      const started = await platform.http('POST', `/workflow_engine/startJobWithOptions/${encodeURIComponent(workflow.name)}`, {
        token,
        body: { options: { variables } },
      });
      expect(started.status).toBe(200);
      const id = (started.body as JobDocument)._id;
      const job = await eventually(
        `job ${id} ends`,
        async () => {
          const current = ((await platform.http('GET', `/operations-manager/jobs/${id}`, { token })).body as { data: JobDocument }).data;
          return ['complete', 'error', 'canceled'].includes(current.status) ? current : undefined;
        },
        { timeoutMs: 20_000 },
      );
      expect(job).toMatchObject({
        status: 'complete',
        variables: {
          rendered: '10    users    active\n20    voice    active\n',
          records: [
            { ID: '10', NAME: 'users' },
            { ID: '20', NAME: 'voice' },
          ],
        },
      });
    });
  });
});
