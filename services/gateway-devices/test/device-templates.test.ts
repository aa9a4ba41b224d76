import { startGatewayPlatform } from './platform';
import type { GatewayPlatform } from './platform';

let gw: GatewayPlatform;

beforeAll(async () => {
  gw = await startGatewayPlatform();
});

afterAll(async () => {
  await gw?.stop();
});

type Template = {
  id: string;
  name: string;
  template: string;
  variables: Record<string, unknown>;
  created: string;
  updated: string;
  createdBy: string;
  updatedBy: string;
  gbac: { read: string[]; write: string[] };
};

describe('configuration manager device templates', () => {
  let edge: Template;

  it('creates templates (200) and refuses a duplicate name (409)', async () => {
    const res = await gw.http('POST', '/configuration_manager/templates', {
      name: 'edge-base',
      template:
        'hostname {{ hostname }}\n{% for i in interfaces %}interface {{ i }}\n description {{ description | default("uplink") }}\n{% endfor %}',
      variables: { hostname: 'default-host', interfaces: ['Gi0/0'] },
    });
    expect(res.status).toBe(200);
    edge = res.body as Template;
    expect(edge).toMatchObject({
      name: 'edge-base',
      variables: { hostname: 'default-host' },
      createdBy: 'admin',
      updatedBy: 'admin',
      gbac: { read: [], write: [] },
    });
    expect(edge.id).toEqual(expect.any(String));
    expect(Number.isNaN(Date.parse(edge.created))).toBe(false);
    expect((await gw.http('POST', '/configuration_manager/templates', { name: 'core-base', template: 'router-id {{ rid }}' })).status).toBe(
      200,
    );
    const dup = await gw.http('POST', '/configuration_manager/templates', { name: 'edge-base', template: 'x' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'DEVICE_TEMPLATE_ALREADY_EXISTS' });
  });

  it('searches as POST /configuration_manager/templates/search: { total, list } by name, options accepted', async () => {
    const res = await gw.http('POST', '/configuration_manager/templates/search', { name: 'EDGE', options: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ total: 1, list: [edge] });
    const all = await gw.http('POST', '/configuration_manager/templates/search', { name: '', options: { limit: 1 } });
    expect(all.body).toMatchObject({ total: 2, list: [{ name: 'core-base' }] });
    const literal = await gw.http('POST', '/configuration_manager/templates/search', { name: '.*', options: {} });
    expect(literal.body).toEqual({ total: 0, list: [] });
    expect((await gw.http('POST', '/configuration_manager/templates/search', { name: 'x' })).status).toBe(400);
  });

  it('gets, replaces and renders with {{ name }} placeholders, variables overriding defaults', async () => {
    expect((await gw.http('GET', `/configuration_manager/templates/${edge.id}`)).body).toEqual(edge);
    const rendered = await gw.http('POST', `/configuration_manager/templates/${edge.id}/render`, {
      variables: { hostname: 'edge-7', interfaces: ['Gi0/1', 'Gi0/2'] },
    });
    expect(rendered).toEqual({
      status: 200,
      body: { rendered: 'hostname edge-7\ninterface Gi0/1\n description uplink\ninterface Gi0/2\n description uplink\n' },
    });
    // Autoescape is off: configuration text is not HTML.
    const put = await gw.http('PUT', `/configuration_manager/templates/${edge.id}`, {
      name: 'edge-base',
      template: 'banner motd {{ banner }}',
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: edge.id, template: 'banner motd {{ banner }}', variables: {} });
    const raw = await gw.http('POST', `/configuration_manager/templates/${edge.id}/render`, {
      variables: { banner: '<Authorised & logged>' },
    });
    expect(raw.body).toEqual({ rendered: 'banner motd <Authorised & logged>' });
    // variables misspelled: refused, naming the member meant
    const misspelled = await gw.http('POST', `/configuration_manager/templates/${edge.id}/render`, { varibles: { banner: 'x' } });
    expect(misspelled).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        message: "body must have required property 'variables' (it has 'varibles': did you mean 'variables'?)",
      },
    });
  });

  it('fails a render with 422 naming the missing variable, and on a syntax error', async () => {
    const res = await gw.http('POST', '/configuration_manager/templates/core-base/render', { variables: {} });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'DEVICE_TEMPLATE_RENDER_FAILED',
      message: 'Device template "core-base" needs "rid": give it in variables',
      details: { missing: ['rid'] },
    });
    const broken = await gw.http('POST', '/configuration_manager/templates', { name: 'broken', template: 'x {% if %}' });
    const id = (broken.body as Template).id;
    const syntax = await gw.http('POST', `/configuration_manager/templates/${id}/render`, { variables: {} });
    expect(syntax.status).toBe(422);
    expect(syntax.body).toMatchObject({ code: 'DEVICE_TEMPLATE_RENDER_FAILED' });
  });

  it("renders with the platform's Jinja2: block tags leave no blank lines, the final newline stays, conditions may test a missing variable", async () => {
    const template = [
      'hostname {{ hostname }}',
      '{% if banner is defined %}',
      'banner motd ^{{ banner }}^',
      '{% endif %}',
      '{% for vlan in vlans %}',
      '  {% if vlan.id > 1 %}',
      'vlan {{ vlan.id }}',
      ' name {{ vlan.name | upper }}',
      '  {% endif %}',
      '{% endfor %}',
      '{% if ntp %}ntp server {{ ntp }}{% endif %}',
      'end',
      '',
    ].join('\n');
    const created = await gw.http('POST', '/configuration_manager/templates', { name: 'whitespace', template, variables: { vlans: [] } });
    const id = (created.body as Template).id;
    const res = await gw.http('POST', `/configuration_manager/templates/${id}/render`, {
      variables: {
        hostname: 'r1',
        vlans: [
          { id: 1, name: 'default' },
          { id: 10, name: 'users' },
        ],
      },
    });
    expect(res).toEqual({ status: 200, body: { rendered: 'hostname r1\nvlan 10\n name USERS\nend\n' } });
    const two = await gw.http('POST', `/configuration_manager/templates/${id}/render`, { variables: { vlans: [{ id: 2 }] } });
    expect(two).toMatchObject({
      status: 422,
      body: {
        code: 'DEVICE_TEMPLATE_RENDER_FAILED',
        message: 'Device template "whitespace" needs "hostname": give it in variables',
        details: { missing: ['hostname'] },
      },
    });
    const field = await gw.http('POST', `/configuration_manager/templates/${id}/render`, {
      variables: { hostname: 'r1', vlans: [{ id: 2 }] },
    });
    expect(field).toMatchObject({
      status: 422,
      body: {
        code: 'DEVICE_TEMPLATE_RENDER_FAILED',
        message: "Device template \"whitespace\" failed at line 8: 'dict object' has no attribute 'name'",
      },
    });
  });

  it('refuses a probe of Python internals in a device template with 400', async () => {
    const created = await gw.http('POST', '/configuration_manager/templates', { name: 'probe', template: "{{ ''.__class__.__mro__ }}" });
    const res = await gw.http('POST', `/configuration_manager/templates/${(created.body as Template).id}/render`, { variables: {} });
    expect(res).toMatchObject({ status: 400, body: { code: 'TEMPLATE_SANDBOX_VIOLATION' } });
  });

  it('deletes, then answers 404', async () => {
    const del = await gw.http('DELETE', `/configuration_manager/templates/${edge.id}`);
    expect(del).toEqual({ status: 200, body: { status: 'success', message: 'Device template "edge-base" deleted' } });
    const again = await gw.http('GET', `/configuration_manager/templates/${edge.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 'DEVICE_TEMPLATE_NOT_FOUND' });
  });
});
