import { UUID_V4_PATTERN, getOperation, validateResponse } from '@nap/contracts';
import type { CreatedResult, ImportResult } from '@nap/contracts';
import { task } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { OK, linearWorkflow, userWithRoles } from './helpers';

let platform: TestPlatform;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
});

afterAll(async () => {
  await platform.stop();
});

type Doc = { _id: string; name: string } & Record<string, unknown>;

function jinja(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    type: 'jinja2',
    template: 'interface {{ name }}\n description {{ description }}',
    data: '{"name": "Gi0/1", "description": "uplink"}',
    group: 'IOS',
    description: 'an interface',
    ...extra,
  };
}

describe('studio templates', () => {
  it('creates, gets, lists, replaces, exports and deletes a template', async () => {
    const res = await platform.http('POST', '/automation-studio/templates', { token: admin, body: { template: jinja('Interface') } });
    expect(res.status).toBe(200);
    const created = (res.body as CreatedResult<Doc>).data;
    expect(res.body).toMatchObject({ status: 'Created', message: expect.stringContaining('Interface') });
    expect(created).toMatchObject({
      _id: expect.any(String),
      name: 'Interface',
      type: 'jinja2',
      group: 'IOS',
      command: '',
      tags: [],
      createdBy: 'admin',
      lastUpdatedBy: 'admin',
    });
    expect(validateResponse(getOperation('studio.createTemplate'), res.body)).toEqual([]);

    expect((await platform.http('GET', `/automation-studio/templates/${created._id}`, { token: admin })).body).toEqual(created);
    const list = await platform.http('GET', '/automation-studio/templates?equals=Interface', { token: admin });
    expect(list.body).toMatchObject({ total: 1, items: [{ _id: created._id }] });

    const put = await platform.http('PUT', `/automation-studio/templates/${created._id}`, {
      token: admin,
      body: { update: jinja('Interface', { template: 'hostname {{ host }}', type: 'textfsm', command: 'show run' }) },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      _id: created._id,
      template: 'hostname {{ host }}',
      type: 'textfsm',
      command: 'show run',
      created: created.created,
    });

    const exported = await platform.http('GET', `/automation-studio/templates/${created._id}/export`, { token: admin });
    expect(exported.body).toEqual(put.body);
    expect((await platform.http('DELETE', `/automation-studio/templates/${created._id}`, { token: admin })).status).toBe(200);
    const gone = await platform.http('GET', `/automation-studio/templates/${created._id}`, { token: admin });
    expect(gone).toMatchObject({ status: 404, body: { code: 'TEMPLATE_NOT_FOUND' } });
  });

  it('refuses a duplicate name with 409 and a kind other than jinja2 or textfsm with 400', async () => {
    expect((await platform.http('POST', '/automation-studio/templates', { token: admin, body: { template: jinja('Twice') } })).status).toBe(
      200,
    );
    const dup = await platform.http('POST', '/automation-studio/templates', { token: admin, body: { template: jinja('Twice') } });
    expect(dup).toMatchObject({ status: 409, body: { code: 'TEMPLATE_ALREADY_EXISTS' } });
    const bad = await platform.http('POST', '/automation-studio/templates', {
      token: admin,
      body: { template: jinja('Mako', { type: 'mako' }) },
    });
    expect(bad).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', details: [expect.objectContaining({ member: 'body.template.type' })] },
    });
  });

  it('imports templates per item, keeping the ids they bring', async () => {
    const items = [
      jinja('Imported T1', { _id: '67341ceda1c9aed687bfdcdd', tags: null }),
      jinja('Imported T2', { type: 'ansible' }),
      { type: 'jinja2', template: 'x' },
    ];
    const res = await platform.http('POST', '/automation-studio/templates/import', { token: admin, body: { templates: items } });
    const body = res.body as ImportResult;
    expect(body).toMatchObject({ status: 'success', message: 'Imported 1 of 3 templates' });
    expect(body.imported.map((i) => i.success)).toEqual([true, false, false]);
    expect(body.imported[0]!.created).toMatchObject({ _id: '67341ceda1c9aed687bfdcdd', tags: null });
    expect(body.imported[1]).toMatchObject({
      created: null,
      message: expect.stringContaining('Imported T2'),
      problems: [expect.objectContaining({ member: 'body.templates[1].type' })],
    });
    expect(validateResponse(getOperation('studio.importTemplates'), body)).toEqual([]);
  });
});

describe('component groups', () => {
  it('creates, gets, lists, replaces and deletes a component group, and imports them per item', async () => {
    const res = await platform.http('POST', '/automation-studio/component-groups', {
      token: admin,
      body: { componentGroup: { name: 'Day 0', members: [{ type: 'workflow', name: 'Onboard' }] } },
    });
    expect(res.status).toBe(200);
    const group = (res.body as CreatedResult<Doc>).data;
    expect(group).toMatchObject({ name: 'Day 0', description: '', members: [{ type: 'workflow', name: 'Onboard' }], createdBy: 'admin' });
    expect((await platform.http('GET', `/automation-studio/component-groups/${group._id}`, { token: admin })).body).toEqual(group);
    const put = await platform.http('PUT', `/automation-studio/component-groups/${group._id}`, {
      token: admin,
      body: { update: { name: 'Day 0', description: 'onboarding', members: [] } },
    });
    expect(put.body).toMatchObject({ description: 'onboarding', members: [], created: group.created });
    const dup = await platform.http('POST', '/automation-studio/component-groups', {
      token: admin,
      body: { componentGroup: { name: 'Day 0' } },
    });
    expect(dup).toMatchObject({ status: 409, body: { code: 'COMPONENT_GROUP_ALREADY_EXISTS' } });

    const imported = await platform.http('POST', '/automation-studio/component-groups/import', {
      token: admin,
      body: { componentGroups: [{ name: 'Day 1' }, { name: 'Day 0' }, { members: 'none' }] },
    });
    expect(imported.body).toMatchObject({ status: 'success', message: 'Imported 1 of 3 component groups' });
    const list = await platform.http('GET', '/automation-studio/component-groups?startsWith=Day', { token: admin });
    expect((list.body as { items: Doc[] }).items.map((g) => g.name)).toEqual(['Day 0', 'Day 1']);

    expect((await platform.http('DELETE', `/automation-studio/component-groups/${group._id}`, { token: admin })).status).toBe(200);
    expect((await platform.http('GET', `/automation-studio/component-groups/${group._id}`, { token: admin })).body).toMatchObject({
      code: 'COMPONENT_GROUP_NOT_FOUND',
    });
  });
});

describe('forms', () => {
  const form = {
    name: 'Device form',
    children: [
      {
        type: 'string',
        name: 'hostname',
        description: 'host',
        element: '{"type":"text"}',
        source_type: 'method',
        source: '',
        id: 'c1',
        yangkey: '',
        key: 'hostname',
        properties: { type: 'text', prefix: '' },
      },
    ],
    elements: [{ type: 'method', id: { name: 'hostname' } }],
  };

  it('exports a form by _id, by name, or by both when both match (operation 19)', async () => {
    const res = await platform.http('POST', '/formbuilder/forms', { token: admin, body: { form } });
    expect(res.status).toBe(200);
    const created = (res.body as CreatedResult<Doc>).data;
    expect(created._id).toMatch(new RegExp(UUID_V4_PATTERN));
    expect(created).toMatchObject({ name: 'Device form', groups: [], created_by: 'admin', last_updated_by: 'admin' });

    for (const options of [{ _id: created._id }, { name: 'Device form' }, { _id: created._id.toUpperCase(), name: 'Device form' }]) {
      const exported = await platform.http('POST', '/formbuilder/forms/export', { token: admin, body: { options } });
      expect(exported.status).toBe(200);
      expect(exported.body).toEqual(created);
      expect(validateResponse(getOperation('studio.exportForm'), exported.body)).toEqual([]);
    }
    const mismatch = await platform.http('POST', '/formbuilder/forms/export', {
      token: admin,
      body: { options: { _id: created._id, name: 'Other form' } },
    });
    expect(mismatch).toMatchObject({ status: 404, body: { code: 'FORM_NOT_FOUND', message: expect.stringContaining('Other form') } });
    const unknown = await platform.http('POST', '/formbuilder/forms/export', {
      token: admin,
      body: { options: { _id: '3f8e2a5c-1b4d-4c6e-9a7b-2d1e0f3c4b5a' } },
    });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'FORM_NOT_FOUND' } });
    const notUuid = await platform.http('POST', '/formbuilder/forms/export', { token: admin, body: { options: { _id: 'device-form' } } });
    expect(notUuid.status).toBe(400);
    const extra = await platform.http('POST', '/formbuilder/forms/export', {
      token: admin,
      body: { options: { name: 'Device form', version: 2 } },
    });
    expect(extra.status).toBe(400);
  });

  it("exports a form without children or elements as the spec's Form, with both []", async () => {
    const res = await platform.http('POST', '/formbuilder/forms', { token: admin, body: { form: { name: 'Bare form' } } });
    expect(res.status).toBe(200);
    const exported = await platform.http('POST', '/formbuilder/forms/export', { token: admin, body: { options: { name: 'Bare form' } } });
    expect(exported.status).toBe(200);
    expect(exported.body).toMatchObject({
      _id: (res.body as CreatedResult<Doc>).data._id,
      name: 'Bare form',
      children: [],
      elements: [],
      groups: [],
    });
    expect(validateResponse(getOperation('studio.exportForm'), exported.body)).toEqual([]);
  });

  it('gets a form by its _id, by its name, or by the id another platform gave it (as exported manual triggers name forms)', async () => {
    const created = (
      await platform.http('POST', '/formbuilder/forms', {
        token: admin,
        body: { form: { ...form, name: '@0123456789abcdef01234567: Port form', id: '67927a479a3b6ff0580cd985' } },
      })
    ).body as CreatedResult<Doc>;
    for (const key of [created.data._id, '@0123456789abcdef01234567: Port form', '67927a479a3b6ff0580cd985']) {
      const got = await platform.http('GET', `/formbuilder/forms/${encodeURIComponent(key)}`, { token: admin });
      expect({ key, status: got.status, id: (got.body as Doc)._id }).toEqual({ key, status: 200, id: created.data._id });
    }
    const missing = await platform.http('GET', `/formbuilder/forms/${encodeURIComponent('@0123456789abcdef01234567: No form')}`, {
      token: admin,
    });
    expect(missing).toMatchObject({ status: 404, body: { code: 'FORM_NOT_FOUND', message: expect.stringContaining('No form') } });
  });

  it('lets only admin and apiread export, as the spec lists', async () => {
    const engineer = await userWithRoles(platform, admin, 'form-engineer', ['engineering']);
    const reader = await userWithRoles(platform, admin, 'form-reader', ['apiread']);
    expect(
      (await platform.http('POST', '/formbuilder/forms/export', { token: engineer.token, body: { options: { name: 'Device form' } } }))
        .status,
    ).toBe(403);
    expect(
      (await platform.http('POST', '/formbuilder/forms/export', { token: reader.token, body: { options: { name: 'Device form' } } }))
        .status,
    ).toBe(200);
  });

  it('keeps a UUID v4 _id, refuses a taken name, imports per item, lists, gets and deletes', async () => {
    const id = '0b6c3d1e-2f4a-4b5c-8d6e-7f8091a2b3c4';
    const res = await platform.http('POST', '/formbuilder/forms', {
      token: admin,
      body: { form: { ...form, name: 'Kept id form', _id: id } },
    });
    expect((res.body as CreatedResult<Doc>).data._id).toBe(id);
    // a form written by a client keeps the _id it brings, so one that is not a UUID v4 is refused, not replaced
    for (const _id of ['67341ced1ef8108b32e9cb0c', 'not-uuid']) {
      const refused = await platform.http('POST', '/formbuilder/forms', {
        token: admin,
        body: { form: { ...form, name: 'Foreign id form', _id } },
      });
      expect(refused).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_FAILED',
          message: expect.stringContaining(`body.form._id "${_id}" is not a UUID v4`),
          details: [{ member: 'body.form._id' }],
        },
      });
    }
    expect((await platform.http('GET', '/formbuilder/forms?equals=Foreign id form', { token: admin })).body).toMatchObject({ total: 0 });
    // a form imported from another system is given a UUID v4 in place of its own id (the import answers it)
    const replaced = await platform.http('POST', '/formbuilder/forms/import', {
      token: admin,
      body: { forms: [{ ...form, name: 'ObjectId form', _id: '67341ced1ef8108b32e9cb0c' }] },
    });
    expect((replaced.body as ImportResult<unknown, Doc>).imported[0]?.created?._id).toMatch(new RegExp(UUID_V4_PATTERN));
    expect((await platform.http('POST', '/formbuilder/forms', { token: admin, body: { form } })).body).toMatchObject({
      code: 'FORM_ALREADY_EXISTS',
    });

    const imported = await platform.http('POST', '/formbuilder/forms/import', {
      token: admin,
      body: { forms: [{ name: 'Imported form', struct: { type: 'object' } }, { name: 'Kept id form' }] },
    });
    expect(imported.body).toMatchObject({
      status: 'success',
      message: 'Imported 1 of 2 forms',
      imported: [{ success: true }, { success: false, created: null }],
    });

    const list = await platform.http('GET', '/formbuilder/forms?contains=form&sort=name', { token: admin });
    expect((list.body as { items: Doc[] }).items.map((f) => f.name)).toEqual(
      expect.arrayContaining(['Device form', 'Imported form', 'Kept id form', 'ObjectId form']),
    );
    expect((await platform.http('GET', `/formbuilder/forms/${id}`, { token: admin })).body).toMatchObject({ name: 'Kept id form' });
    expect((await platform.http('DELETE', `/formbuilder/forms/${id}`, { token: admin })).status).toBe(200);
    expect((await platform.http('GET', `/formbuilder/forms/${id}`, { token: admin })).status).toBe(404);
  });

  it("refuses a form whose id another platform gave it is another form's _id, name or id, or whose _id or name is another's id (409, naming it)", async () => {
    const send = (method: string, route: string, body: unknown) => platform.http(method, route, { token: admin, body });
    const first = await send('POST', '/json-forms/forms', { ...form, name: 'Id form A', id: 'ext-form-a' });
    expect(first.status).toBe(200);
    const a = (first.body as { doc: Doc }).doc;
    const taken = (res: { status: number; body: unknown }, member: string, value: string) =>
      expect({ status: res.status, body: res.body }).toMatchObject({
        status: 409,
        body: { code: 'FORM_ALREADY_EXISTS', message: expect.stringContaining(`${member} "${value}"`), details: [{ member }] },
      });
    // its id is another form's _id, name or id
    taken(await send('POST', '/json-forms/forms', { ...form, name: 'Id form B', id: a._id }), 'body.id', a._id);
    taken(await send('POST', '/json-forms/forms', { ...form, name: 'Id form B', id: 'Id form A' }), 'body.id', 'Id form A');
    const imported = await send('POST', '/json-forms/import/forms', { forms: [{ ...form, name: 'Id form B', id: 'ext-form-a' }] });
    expect(imported.body).toMatchObject({
      imported: [
        { success: false, message: expect.stringContaining('body.forms[0].id "ext-form-a" is the id or name of form "Id form A"') },
      ],
    });
    // its _id or its name is another form's id
    const kept = '5d7c1e2f-3a4b-4c5d-9e6f-708192a3b4c5';
    expect((await send('POST', '/formbuilder/forms', { form: { ...form, name: 'Id form C', id: kept } })).status).toBe(200);
    taken(await send('POST', '/formbuilder/forms', { form: { ...form, name: 'Id form D', _id: kept } }), 'body.form._id', kept);
    taken(await send('POST', '/formbuilder/forms', { form: { ...form, name: 'ext-form-a' } }), 'body.form.name', 'ext-form-a');
    // an update: its own id and name are its own; another's id is not
    const b = (
      (await send('POST', '/formbuilder/forms', { form: { ...form, name: 'Id form B', id: 'ext-form-b' } })).body as CreatedResult<Doc>
    ).data;
    const again = await send('PUT', `/formbuilder/forms/${b._id}`, {
      form: { ...form, name: 'Id form B', id: 'ext-form-b', description: 'changed' },
    });
    expect(again.status).toBe(200);
    taken(
      await send('PUT', `/formbuilder/forms/${b._id}`, { form: { ...form, name: 'Id form B', id: 'ext-form-a' } }),
      'body.form.id',
      'ext-form-a',
    );
    // so that each key finds one form
    for (const [key, name] of [
      ['ext-form-a', 'Id form A'],
      ['ext-form-b', 'Id form B'],
      [kept, 'Id form C'],
    ]) {
      const got = await platform.http('GET', `/json-forms/forms/${encodeURIComponent(key as string)}`, { token: admin });
      expect({ key, status: got.status, name: (got.body as Doc).name }).toEqual({ key, status: 200, name });
    }
  });

  it('keeps one form of concurrent creates that bring the same id; the others are refused as the check refuses them (409 naming the id)', async () => {
    const id = 'ext-form-raced';
    const creates = Array.from({ length: 8 }, (_, i) =>
      platform.http('POST', '/json-forms/forms', { token: admin, body: { ...form, name: `Raced form ${i}`, id } }),
    );
    const results = await Promise.all(creates);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    for (const refused of results.filter((r) => r.status === 409)) {
      expect(refused.body).toMatchObject({
        code: 'FORM_ALREADY_EXISTS',
        message: expect.stringContaining(`body.id "${id}"`),
        details: [{ member: 'body.id' }],
      });
    }
    const got = await platform.http('GET', `/json-forms/forms/${id}`, { token: admin });
    expect(got.status).toBe(200);
    const stored = await platform.http('GET', '/formbuilder/forms?limit=500', { token: admin });
    const raced = JSON.stringify(stored.body).match(/Raced form \d/g) ?? [];
    expect(raced).toEqual([(got.body as Doc).name]);
  });

  it('limits a form shared with groups to their members', async () => {
    const member = await userWithRoles(platform, admin, 'form-member', ['apiread']);
    const outsider = await userWithRoles(platform, admin, 'form-outsider', ['apiread']);
    await platform.http('POST', '/formbuilder/forms', {
      token: admin,
      body: { form: { ...form, name: 'Shared form', groups: [member.groupId] } },
    });
    expect(
      (await platform.http('POST', '/formbuilder/forms/export', { token: member.token, body: { options: { name: 'Shared form' } } }))
        .status,
    ).toBe(200);
    const denied = await platform.http('POST', '/formbuilder/forms/export', {
      token: outsider.token,
      body: { options: { name: 'Shared form' } },
    });
    expect(denied).toMatchObject({ status: 403, body: { code: 'GROUP_ACCESS_DENIED' } });
    const names = (
      (await platform.http('GET', '/formbuilder/forms?limit=500', { token: outsider.token })).body as { items: Doc[] }
    ).items.map((f) => f.name);
    expect(names).toContain('Device form');
    expect(names).not.toContain('Shared form');
  });
});

describe('list queries', () => {
  const LISTS = [
    '/automation-studio/automations',
    '/automation-studio/workflows',
    '/automation-studio/templates',
    '/automation-studio/component-groups',
    '/automation-studio/projects',
    '/formbuilder/forms',
    '/transformations',
  ];

  it('refuses a filter the route does not support with 400 naming it, never answering every document', async () => {
    const queries: [string, string][] = [
      ['in[name]=VLAN,bomb', 'query.in'],
      ['not-in[name]=VLAN', 'query.not-in'],
      ['gt[name]=zzz', 'query.gt'],
      ['starts-with[name]=a', 'query.starts-with'],
      ['bogus=1', 'query.bogus'],
      ['equals[bogus]=x', 'query.equals[bogus]'],
    ];
    for (const route of LISTS) {
      for (const [query, member] of queries) {
        const res = await platform.http('GET', `${route}?${query}`, { token: admin });
        expect({ route, query, status: res.status, code: (res.body as { code?: string }).code }).toEqual({
          route,
          query,
          status: 400,
          code: 'VALIDATION_FAILED',
        });
        expect((res.body as { details: { member: string }[] }).details.map((d) => d.member)).toContain(member);
      }
      // the filters the route supports still answer
      const ok = await platform.http('GET', `${route}?equals[name]=no such document&limit=5&skip=0&sort=name&order=-1`, { token: admin });
      expect({ route, status: ok.status }).toEqual({ route, status: 200 });
    }
    const refs = await platform.http('GET', '/automation-studio/references-to?target=x&bogus=1', { token: admin });
    expect(refs).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ member: 'query.bogus' }] } });
  });
});

describe('references between studio documents', () => {
  it('finds the workflows and component groups that refer to a workflow, a JST, a template or a command template', async () => {
    const child = (
      await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: linearWorkflow('Ref child') } })
    ).body as CreatedResult<Doc>;
    await platform.http('POST', '/automation-studio/templates', { token: admin, body: { template: jinja('Ref template') } });
    const parent = linearWorkflow('Ref parent');
    const tasks = parent.tasks as Record<string, Record<string, unknown>>;
    tasks.c1 = task(
      'childJob',
      { task: '', workflow: 'Ref child', variables: {}, data_array: '', transformation: 'jst-2', loopType: '' },
      { job_details: null },
      { type: 'operation' },
    );
    tasks.t1 = task('transformation', { tr_id: 'jst-1', variableMap: {}, options: {} }, {}, { type: 'operation' });
    tasks.r1 = task(
      'renderJinjaTemplate',
      { name: 'Ref template', context: '$var.job.ctx' },
      { renderedTemplate: null },
      { app: 'TemplateBuilder' },
    );
    tasks.m1 = task('RunCommandTemplate', { template: 'show-version', variables: {}, devices: [] }, {}, { app: 'MOP' });
    parent.transitions = {
      workflow_start: { c1: OK },
      c1: { t1: OK, e1: { state: 'error', type: 'standard' } },
      t1: { r1: OK },
      r1: { m1: OK },
      m1: { a1: OK },
      a1: { workflow_end: OK, e1: { state: 'error', type: 'standard' } },
      e1: { workflow_end: OK },
    };
    const saved = await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: parent } });
    expect(saved.status).toBe(200);
    const parentId = (saved.body as CreatedResult<Doc>).data._id;
    await platform.http('POST', '/automation-studio/component-groups', {
      token: admin,
      body: { componentGroup: { name: 'Ref group', members: [{ type: 'workflow', id: child.data._id }] } },
    });

    const refs = async (query: string): Promise<{ type: string; _id: string; name: string; tasks?: string[] }[]> => {
      const res = await platform.http('GET', `/automation-studio/references-to?${query}`, { token: admin });
      expect(res.status).toBe(200);
      expect(validateResponse(getOperation('studio.getReferencesTo'), res.body)).toEqual([]);
      return (res.body as { references: { type: string; _id: string; name: string; tasks?: string[] }[] }).references;
    };
    // by the child's id: childJob tasks name it, the group lists it by id
    expect(await refs(`target=${child.data._id}&type=workflow`)).toEqual([
      { type: 'componentGroup', _id: expect.any(String), name: 'Ref group' },
      { type: 'workflow', _id: parentId, name: 'Ref parent', tasks: ['c1'] },
    ]);
    expect(await refs('target=Ref%20child')).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Ref parent', tasks: ['c1'] })]),
    );
    expect(await refs('target=jst-1&type=transformation')).toEqual([expect.objectContaining({ name: 'Ref parent', tasks: ['t1'] })]);
    expect(await refs('target=jst-2&type=transformation')).toEqual([expect.objectContaining({ name: 'Ref parent', tasks: ['c1'] })]);
    expect(await refs('target=Ref%20template&type=template')).toEqual([expect.objectContaining({ name: 'Ref parent', tasks: ['r1'] })]);
    expect(await refs('target=show-version&type=mopTemplate')).toEqual([expect.objectContaining({ name: 'Ref parent', tasks: ['m1'] })]);
    // the kind matters: a JST id is no workflow name
    expect(await refs('target=jst-1&type=workflow')).toEqual([]);
    expect(await refs('target=nothing-refers-to-this')).toEqual([]);
    expect((await platform.http('GET', '/automation-studio/references-to?target=x&type=spreadsheet', { token: admin })).status).toBe(400);
  });
});

describe('method options', () => {
  it('lists the REST calls the caller may make, with the owning service', async () => {
    const all = (await platform.http('GET', '/automation-studio/json-forms/method-options', { token: admin })).body as {
      name: string;
      app: string;
      path: string;
      method: string;
    }[];
    expect(all).toEqual(
      expect.arrayContaining([
        { name: 'createAutomation', app: 'studio', path: '/automation-studio/automations', method: 'POST' },
        { name: 'getJobs', app: 'workflow', path: '/operations-manager/jobs', method: 'GET' },
      ]),
    );
    expect(all.some((o) => o.path === '/login')).toBe(false);
    const reader = await userWithRoles(platform, admin, 'options-reader', ['apiread']);
    const mine = (await platform.http('GET', '/automation-studio/json-forms/method-options', { token: reader.token })).body as {
      name: string;
      path: string;
      method: string;
    }[];
    expect(mine.length).toBeLessThan(all.length);
    expect(mine.some((o) => o.name === 'getAutomations')).toBe(true);
    expect(mine.some((o) => o.name === 'createAutomation')).toBe(false);
  });
});
