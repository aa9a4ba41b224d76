import { getOperation, validateResponse } from '@nap/contracts';
import type { Envelope, ExportedProject, Project } from '@nap/contracts';
import type { TestPlatform } from '@nap/standalone';
import { linearWorkflow, startWithInsiderAndOutsider } from './helpers';
import type { GroupUser } from './helpers';

/**
 * A project has no groups of its own, but its workflows and forms may: a caller outside those groups
 * (and not an admin) must not read, export or delete them through the project.
 */

let platform: TestPlatform;
let admin: string;
/** engineering, in the group the guarded members are shared with */
let insider: GroupUser;
/** engineering, in none of those groups */
let outsider: GroupUser;

beforeAll(async () => {
  ({ platform, admin, insider, outsider } = await startWithInsiderAndOutsider('project'));
});

afterAll(async () => {
  await platform.stop();
});

/** A project with a guarded workflow and form (shared with the insider's group) and two open members. */
function guardedProject(id: string, groupId: string): ExportedProject {
  return {
    _id: id,
    name: `guarded ${id}`,
    description: 'a project with group-shared members',
    folders: [],
    components: [
      { iid: 0, type: 'workflow', folder: '/', document: linearWorkflow('open-wf') },
      {
        iid: 1,
        type: 'workflow',
        folder: '/',
        document: linearWorkflow('inner-secret-wf', { groups: [groupId], description: 'SECRET-DESCRIPTION' }),
      },
      { iid: 2, type: 'jsonForm', folder: '/', document: { name: 'secret form', groups: [groupId], schema: { type: 'object' } } },
      {
        iid: 3,
        type: 'template',
        folder: '/',
        document: { name: 'render', type: 'jinja2', template: 'hostname {{ name }}', data: '{}', group: 'g', command: '', description: '' },
      },
    ],
  };
}

async function imported(id: string): Promise<Project> {
  const res = await platform.http('POST', '/automation-studio/projects/import', {
    token: admin,
    body: { project: guardedProject(id, insider.groupId) },
  });
  expect(res.status).toBe(200);
  return (res.body as Envelope<Project>).data;
}

function referenceOf(project: Project, iid: number): string {
  const c = project.components.find((x) => x.iid === iid);
  if (c === undefined) throw new Error(`project ${project._id} has no component ${iid}`);
  return c.reference;
}

describe('projects with members shared with groups', () => {
  it('leave the members a caller may not see out of the project and the project list, and say how many', async () => {
    const project = await imported('aaaaaaaaaaaaaaaaaaaaaa01');
    const one = await platform.http('GET', `/automation-studio/projects/${project._id}`, { token: outsider.token });
    expect(one.status).toBe(200);
    const seen = one.body as Envelope<Project>;
    expect(seen.data.components.map((c) => c.iid)).toEqual([0, 3]);
    expect(seen.metadata).toEqual({ componentsLeftOut: 2 });
    expect(JSON.stringify(one.body)).not.toMatch(/inner-secret-wf|secret form/);
    expect(validateResponse(getOperation('studio.getProject'), one.body)).toEqual([]);

    const list = await platform.http('GET', `/automation-studio/projects?equals[_id]=${project._id}`, { token: outsider.token });
    expect(list.status).toBe(200);
    expect((list.body as { data: Project[] }).data.map((p) => p.components.map((c) => c.iid))).toEqual([[0, 3]]);
    expect(JSON.stringify(list.body)).not.toMatch(/inner-secret-wf|secret form/);

    // members of the groups, and admins, see every component
    for (const token of [insider.token, admin]) {
      const whole = (await platform.http('GET', `/automation-studio/projects/${project._id}`, { token })).body as Envelope<Project>;
      expect(whole.data.components.map((c) => c.iid)).toEqual([0, 1, 2, 3]);
      expect(whole.metadata).toEqual({});
      const listed = (await platform.http('GET', `/automation-studio/projects?equals[_id]=${project._id}`, { token })).body as {
        data: Project[];
      };
      expect(listed.data[0]?.components).toHaveLength(4);
    }
  });

  it('refuse an export to a caller outside the groups, naming the members by iid and type alone, and export them to the groups and admins', async () => {
    const project = await imported('aaaaaaaaaaaaaaaaaaaaaa02');
    const denied = await platform.http('GET', `/automation-studio/projects/${project._id}/export`, { token: outsider.token });
    expect(denied).toMatchObject({
      status: 403,
      body: {
        code: 'GROUP_ACCESS_DENIED',
        message:
          'Project "guarded aaaaaaaaaaaaaaaaaaaaaa02" cannot be exported: 2 components (1 (workflow), 2 (jsonForm)) are shared with groups you are not a member of; nothing was exported',
        details: {
          count: 2,
          components: [
            { iid: 1, type: 'workflow' },
            { iid: 2, type: 'jsonForm' },
          ],
        },
      },
    });
    // as GET, which leaves them out and counts them: their names are not the caller's to know
    expect(JSON.stringify(denied.body)).not.toMatch(/inner-secret-wf|secret form/);
    expect(JSON.stringify(denied.body)).not.toContain('SECRET-DESCRIPTION');

    for (const token of [insider.token, admin]) {
      const exported = await platform.http('GET', `/automation-studio/projects/${project._id}/export`, { token });
      expect(exported.status).toBe(200);
      expect((exported.body as { data: ExportedProject }).data.components.map((c) => c.document.name)).toEqual([
        'open-wf',
        'inner-secret-wf',
        'secret form',
        'render',
      ]);
    }
  });

  it('refuse a delete by a caller outside the groups before anything is deleted, and let the groups delete', async () => {
    const project = await imported('aaaaaaaaaaaaaaaaaaaaaa03');
    const denied = await platform.http('DELETE', `/automation-studio/projects/${project._id}`, { token: outsider.token });
    expect(denied).toMatchObject({
      status: 403,
      body: {
        code: 'GROUP_ACCESS_DENIED',
        message: expect.stringMatching(/^Project "guarded aaaaaaaaaaaaaaaaaaaaaa03" cannot be deleted: .*nothing was deleted$/),
        details: {
          count: 2,
          components: [
            { iid: 1, type: 'workflow' },
            { iid: 2, type: 'jsonForm' },
          ],
        },
      },
    });
    expect(JSON.stringify(denied.body)).not.toMatch(/inner-secret-wf|secret form/);
    // nothing was deleted: the project and every component, the open ones too
    expect((await platform.http('GET', `/automation-studio/projects/${project._id}`, { token: admin })).status).toBe(200);
    for (const iid of [0, 1]) {
      const wf = await platform.http('GET', `/automation-studio/automations/${referenceOf(project, iid)}`, { token: admin });
      expect({ iid, status: wf.status }).toEqual({ iid, status: 200 });
    }
    expect((await platform.http('GET', `/formbuilder/forms/${referenceOf(project, 2)}`, { token: admin })).status).toBe(200);
    expect((await platform.http('GET', `/automation-studio/templates/${referenceOf(project, 3)}`, { token: admin })).status).toBe(200);

    const deleted = await platform.http('DELETE', `/automation-studio/projects/${project._id}`, { token: insider.token });
    expect(deleted).toMatchObject({ status: 200, body: { data: { deleted: 4 } } });
    const gone = await platform.http('GET', `/automation-studio/automations/${referenceOf(project, 1)}`, { token: admin });
    expect(gone).toMatchObject({ status: 404, body: { code: 'WORKFLOW_NOT_FOUND' } });
  });

  it('refuse a change by a caller outside the groups without naming the members, even renamed ones', async () => {
    const project = await imported('aaaaaaaaaaaaaaaaaaaaaa05');
    // renamed through its own route by a member of the group: a refusal must not tell the new name either
    const ref = referenceOf(project, 1);
    const wf = (await platform.http('GET', `/automation-studio/automations/${ref}`, { token: insider.token })).body as Record<
      string,
      unknown
    >;
    const { _id: _wfId, created: _c, createdBy: _cb, lastUpdated: _lu, lastUpdatedBy: _lub, ...doc } = wf;
    const renamed = await platform.http('PUT', `/automation-studio/automations/${ref}`, {
      token: insider.token,
      body: { update: { ...doc, name: '@aaaaaaaaaaaaaaaaaaaaaa05: renamed-secret-wf' } },
    });
    expect({ status: renamed.status, body: renamed.status === 200 ? {} : renamed.body }).toEqual({ status: 200, body: {} });
    const denied = await platform.http('PATCH', `/automation-studio/projects/${project._id}`, {
      token: outsider.token,
      body: { description: 'mine now' },
    });
    expect(denied).toMatchObject({
      status: 403,
      body: {
        code: 'GROUP_ACCESS_DENIED',
        details: {
          count: 2,
          components: [
            { iid: 1, type: 'workflow' },
            { iid: 2, type: 'jsonForm' },
          ],
        },
      },
    });
    expect(JSON.stringify(denied.body)).not.toMatch(/secret-wf|secret form/);
    const seen = await platform.http('GET', `/automation-studio/projects/${project._id}`, { token: admin });
    expect((seen.body as Envelope<Project>).data.description).toBe('a project with group-shared members');
  });

  it('name a deleted member a caller may not have seen by its iid and type alone; admins are told its name', async () => {
    const project = await imported('aaaaaaaaaaaaaaaaaaaaaa06');
    const removed = await platform.http('DELETE', `/automation-studio/automations/${referenceOf(project, 1)}`, { token: insider.token });
    expect(removed.status).toBe(200);
    const removedForm = await platform.http('DELETE', `/formbuilder/forms/${referenceOf(project, 2)}`, { token: insider.token });
    expect(removedForm.status).toBe(200);
    const template = await platform.http('DELETE', `/automation-studio/templates/${referenceOf(project, 3)}`, { token: insider.token });
    expect(template.status).toBe(200);

    const note =
      'Components 1 (workflow), 2 (jsonForm), 3 (template "render") were deleted since the project was imported; the project goes on without them';
    const gone = [
      { iid: 1, type: 'workflow' },
      { iid: 2, type: 'jsonForm' },
      { iid: 3, type: 'template', name: 'render' },
    ];
    for (const token of [outsider.token, insider.token]) {
      const got = await platform.http('GET', `/automation-studio/projects/${project._id}`, { token });
      expect(got).toMatchObject({ status: 200, body: { metadata: { componentsGone: gone, note } } });
      expect(validateResponse(getOperation('studio.getProject'), got.body)).toEqual([]);
      const exported = await platform.http('GET', `/automation-studio/projects/${project._id}/export`, { token });
      expect(exported).toMatchObject({ status: 200, body: { data: { componentsGone: gone, note } } });
      const changed = await platform.http('PATCH', `/automation-studio/projects/${project._id}`, { token, body: { description: 'd' } });
      expect(changed).toMatchObject({ status: 200, body: { metadata: { componentsGone: gone, note } } });
      expect(JSON.stringify([got.body, exported.body, changed.body])).not.toMatch(/inner-secret-wf|secret form/);
    }
    const byAdmin = await platform.http('GET', `/automation-studio/projects/${project._id}`, { token: admin });
    expect(byAdmin.body).toMatchObject({
      metadata: {
        componentsGone: [
          { iid: 1, type: 'workflow', name: 'inner-secret-wf' },
          { iid: 2, type: 'jsonForm', name: 'secret form' },
          { iid: 3, type: 'template', name: 'render' },
        ],
      },
    });
  });

  it('refuse an import of members shared only with groups the caller is not in, before anything is written', async () => {
    const project = guardedProject('aaaaaaaaaaaaaaaaaaaaaa04', insider.groupId);
    const res = await platform.http('POST', '/automation-studio/projects/import', { token: outsider.token, body: { project } });
    expect(res).toMatchObject({
      status: 403,
      body: { code: 'GROUP_ACCESS_DENIED', message: expect.stringMatching(/^Component 2 \(jsonForm "secret form"\) was refused/) },
    });
    expect((await platform.http('GET', `/automation-studio/projects/${project._id ?? ''}`, { token: admin })).status).toBe(404);
    const workflows = await platform.http(
      'GET',
      `/automation-studio/automations?startsWith[name]=${encodeURIComponent(`@${project._id ?? ''}: `)}`,
      {
        token: admin,
      },
    );
    expect(workflows.body).toMatchObject({ total: 0 });
  });
});
