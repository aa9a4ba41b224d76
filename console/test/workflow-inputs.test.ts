import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  blankRequired,
  formOf,
  inputsOf,
  isFormFriendly,
  listText,
  parseVariables,
  skeletonOf,
  typeText,
  variablesText,
} from '../src/pages/workflows/workflow-inputs';
import { isRecord } from '../src/api/records';
import { COMMAND_TEMPLATE_RUNNER, PROVISION_VLAN } from './support/workflows';

const FIXTURES = path.resolve(__dirname, '../../../shared/fixtures/itential-assets');

/** The inputSchema of the workflow `name` of the shared fixtures' project `file`, as imported. */
function fixtureInputSchema(file: string, name: string): unknown {
  const project = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as {
    components: { type: string; document: { name: string; inputSchema?: unknown } }[];
  };
  const workflow = project.components.find((component) => component.type === 'workflow' && component.document.name === name);
  if (!workflow) throw new Error(`the fixtures' ${file} has no workflow "${name}"`);
  return workflow.document.inputSchema;
}

/** How the Run dialog reads a workflow's inputSchema: a form for plain members, JSON for the rest. */
describe('a workflow’s inputs', () => {
  it('write an imported schema of members of every type as JSON: a skeleton of the examples, without the platform’s own _id', () => {
    const schema = COMMAND_TEMPLATE_RUNNER.inputSchema;
    expect(isFormFriendly(schema)).toBe(false);
    const inputs = inputsOf(schema);
    expect(skeletonOf(inputs)).toEqual({
      suppressSuccessMessage: null,
      templateName: 'show version',
      templateVariables: { device_name: 'my-device1' },
      reattempt: null,
      reattemptWaitTime: 1,
      reattemptQuantity: 2,
      deviceName: 'Device3',
      suppressFailureMessage: null,
    });
    const byName = new Map(inputs.map((input) => [input.name, input]));
    expect(typeText(byName.get('suppressSuccessMessage')!)).toBe('any');
    expect(typeText(byName.get('deviceName')!)).toBe('any but null');
    expect(typeText(byName.get('reattemptWaitTime')!)).toBe('integer');
    expect(byName.get('_id')).toMatchObject({ givenByPlatform: true, required: true });
    expect(byName.get('templateName')).toMatchObject({ title: 'template', required: true });
  });

  it('ask for plain members with a form labelled by their titles, the name beside a title, examples as placeholders, the platform’s _id left out', () => {
    const schema = PROVISION_VLAN.inputSchema;
    expect(isFormFriendly(schema)).toBe(true);
    const form = formOf(schema);
    expect(form.schema.required).toEqual(['device', 'vlan']);
    expect(Object.keys(form.schema.properties)).toEqual(['device', 'vlan', 'vlanName', 'shutdown']);
    expect(form.schema.properties.vlan).toEqual({ type: 'integer', minimum: 1, maximum: 4094, title: 'VLAN id' });
    expect(form.schema.properties.device).toEqual({ type: 'string', title: 'device', description: 'the switch' });
    expect(form.uiSchema).toEqual({
      device: { 'ui:placeholder': 'core-1' },
      vlan: { 'ui:options': { variable: 'vlan' }, 'ui:description': 'vlan', 'ui:placeholder': '120' },
      vlanName: { 'ui:placeholder': 'guests' },
    });
    // a title that only capitalises the name labels the field, with nothing beside it
    const plan = formOf({ type: 'object', properties: { plan: { type: 'string', title: 'Plan' } } });
    expect(plan.schema.properties.plan).toEqual({ type: 'string', title: 'Plan' });
    expect(plan.uiSchema).toEqual({});
  });

  it('write as JSON what a form cannot hold: objects without members, several types, composed schemas, no members', () => {
    const plain = { type: 'object', properties: { a: { type: 'string' } } };
    expect(isFormFriendly(plain)).toBe(true);
    expect(isFormFriendly({ ...plain, properties: { a: { type: 'object' } } })).toBe(false);
    expect(isFormFriendly({ ...plain, properties: { a: { type: 'object', properties: {} } } })).toBe(false);
    expect(isFormFriendly({ ...plain, properties: { a: { type: ['string', 'null'] } } })).toBe(false);
    expect(isFormFriendly({ ...plain, properties: { a: {} } })).toBe(false);
    expect(isFormFriendly({ ...plain, required: ['b'] })).toBe(false);
    expect(isFormFriendly({ ...plain, oneOf: [] })).toBe(false);
    expect(isFormFriendly({ type: 'object', properties: { _id: { type: 'string' } } })).toBe(false);
    expect(isFormFriendly(undefined)).toBe(false);
    expect(inputsOf(undefined)).toEqual([]);
  });

  it('ask with a form for lists of plain values and objects of plain members, one level down, their fields labelled and placeheld as plain ones', () => {
    const schema = {
      type: 'object',
      properties: {
        devices: { type: 'array', title: 'Devices', minItems: 1, items: { type: 'string', minLength: 1, examples: ['core-1'] } },
        vlans: { type: 'array', items: { type: 'integer', minimum: 1 }, examples: [[120, 130]] },
        modes: { type: 'array', uniqueItems: true, items: { type: 'string', enum: ['a', 'b'], enumNames: ['Access', 'Bridge'] } },
        contact: {
          type: 'object',
          title: 'On call',
          description: 'who answers during the window',
          properties: {
            name: { type: 'string', examples: ['Ana Costa'] },
            phone: { type: 'string', title: 'Phone number', description: 'with the country code' },
            pager: { type: 'boolean', examples: [true] },
          },
          required: ['name'],
          additionalProperties: false,
        },
        _id: { type: 'string' },
      },
      required: ['devices', 'contact', '_id'],
    };
    expect(isFormFriendly(schema)).toBe(true);
    const form = formOf(schema);
    expect(form.schema).toEqual({
      type: 'object',
      properties: {
        devices: { type: 'array', title: 'Devices', minItems: 1, items: { type: 'string', minLength: 1 } },
        vlans: { type: 'array', title: 'vlans', items: { type: 'integer', minimum: 1 } },
        modes: {
          type: 'array',
          title: 'modes',
          uniqueItems: true,
          items: { type: 'string', enum: ['a', 'b'], enumNames: ['Access', 'Bridge'] },
        },
        contact: {
          type: 'object',
          title: 'On call',
          description: 'who answers during the window',
          properties: {
            name: { type: 'string', title: 'name' },
            phone: { type: 'string', title: 'Phone number', description: 'with the country code' },
            pager: { type: 'boolean', title: 'pager' },
          },
          required: ['name'],
          additionalProperties: false,
        },
      },
      required: ['devices', 'contact'],
    });
    expect(form.uiSchema).toEqual({
      // an item's placeholder: the items' first example, else the first item of the list's first example
      devices: { items: { 'ui:placeholder': 'core-1' } },
      vlans: { items: { 'ui:placeholder': '120' } },
      modes: { items: { 'ui:enumNames': ['Access', 'Bridge'] } },
      contact: {
        'ui:options': { variable: 'contact' },
        'ui:description': 'who answers during the window',
        name: { 'ui:placeholder': 'Ana Costa' },
        phone: { 'ui:options': { variable: 'phone' }, 'ui:description': 'with the country code' },
      },
    });
    // a choice's names as the platform's forms write them
    expect(formOf({ type: 'object', properties: { site: { type: 'string', enum: ['pa'], enumNames: ['Paris'] } } }).uiSchema).toEqual({
      site: { 'ui:enumNames': ['Paris'] },
    });
  });

  it('keep as JSON what the form would draw badly or not at all: lists of objects or lists, tuples, maps, objects two levels down, members of any type', () => {
    const withMember = (member: unknown) => ({ type: 'object', properties: { name: { type: 'string' }, member } });
    expect(isFormFriendly(withMember({ type: 'array', items: { type: 'string' } }))).toBe(true);
    expect(isFormFriendly(withMember({ type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } }))).toBe(false);
    expect(isFormFriendly(withMember({ type: 'array', items: { type: 'array', items: { type: 'string' } } }))).toBe(false);
    expect(isFormFriendly(withMember({ type: 'array', items: [{ type: 'string' }] }))).toBe(false);
    expect(isFormFriendly(withMember({ type: 'array' }))).toBe(false);
    expect(isFormFriendly(withMember({ type: 'array', items: { type: ['string', 'null'] } }))).toBe(false);
    expect(isFormFriendly(withMember({ type: 'array', items: { $ref: '#/definitions/x' } }))).toBe(false);
    expect(isFormFriendly(withMember({ type: 'array', items: { type: 'string' }, contains: { const: 'a' } }))).toBe(false);
    const object = { type: 'object', properties: { a: { type: 'string' }, l: { type: 'array', items: { type: 'number' } } } };
    expect(isFormFriendly(withMember(object))).toBe(true);
    expect(isFormFriendly(withMember({ ...object, additionalProperties: false }))).toBe(true);
    expect(isFormFriendly(withMember({ ...object, additionalProperties: true }))).toBe(false);
    expect(isFormFriendly(withMember({ ...object, additionalProperties: { type: 'string' } }))).toBe(false);
    // a required member the object does not describe, one of any type, a composed one
    expect(isFormFriendly(withMember({ ...object, required: ['b'] }))).toBe(false);
    expect(
      isFormFriendly(withMember({ ...object, properties: { a: { type: ['array', 'boolean', 'null', 'number', 'object', 'string'] } } })),
    ).toBe(false);
    expect(isFormFriendly(withMember({ ...object, anyOf: [{ required: ['a'] }] }))).toBe(false);
    // two levels of groups are as deep as the form goes
    expect(isFormFriendly(withMember({ type: 'object', properties: { inner: object } }))).toBe(false);
  });

  it('read the shared fixtures’ schemas: an object of text and lists of text is a form; lists of objects and members of any type stay JSON', () => {
    const meraki = fixtureInputSchema('Cisco_Meraki_Projects_Cisco_Meraki.project.json', 'Create Network and Claim Devices');
    expect(isFormFriendly(meraki)).toBe(true);
    const form = formOf(meraki);
    const formData = form.schema.properties.formData as { properties: Record<string, unknown> };
    expect(formData.properties.serials).toEqual({ type: 'array', title: 'serials', items: { type: 'string' } });
    expect(form.uiSchema).toMatchObject({
      formData: { serials: { items: { 'ui:placeholder': 'Q3AL-NE8E-R4K6' } }, networkName: { 'ui:placeholder': 'test' } },
    });
    expect(form.schema.required).toEqual(['formData']);
    for (const [file, name] of [
      // arrays of objects
      ['Palo_Alto_Panorama_Projects_Palo_Alto_Panorama.project.json', 'Create Security Pre Rule'],
      ['F5_BIG-IP_Projects_F5_BIG-IP.project.json', 'Create Pool and Members'],
      // a list of text beside members of any type
      ['Palo_Alto_Panorama_Projects_Palo_Alto_Panorama.project.json', 'Standalone Software Upgrade'],
      // an object of text beside a member of any type
      ['Kentik_Projects_Kentik.project.json', 'Device Flow Test'],
    ] as const) {
      const schema = fixtureInputSchema(file, name);
      expect([name, isRecord(schema) && Object.keys(schema.properties as object).length > 0, isFormFriendly(schema)]).toEqual([
        name,
        true,
        false,
      ]);
    }
  });

  it('start the JSON with what the workflow’s author wrote, a blank to fill for a required member without, and nothing for an optional one', () => {
    const inputs = inputsOf({
      type: 'object',
      properties: {
        s: { type: 'string' },
        n: { type: 'number' },
        e: { enum: ['x', 'y'] },
        d: { type: 'integer', default: 3 },
        host: { type: 'string' },
        port: { type: 'integer' },
        any: { type: ['array', 'boolean', 'null', 'number', 'object', 'string'] },
        mode: { enum: ['a', 'b'] },
        _id: { type: 'string' },
      },
      required: ['host', 'port', 'any', 'mode', '_id'],
    });
    // no placeholder value (0, false, the first of a list) that would be sent as if someone had chosen it
    expect(skeletonOf(inputs)).toEqual({ d: 3, host: '', port: null, any: null, mode: null });
  });

  it('name the required members still blank (null, "", spaces) before anything is sent, not those left out or given', () => {
    const inputs = inputsOf({
      type: 'object',
      properties: {
        adapterId: { type: ['array', 'boolean', 'null', 'number', 'object', 'string'] },
        targetVersion: { type: 'string' },
        firewall: { type: 'string' },
        note: { type: 'string' },
        suffix: { type: 'string', default: '' },
        flag: { type: ['boolean', 'null'], enum: [true, false, null] },
        _id: { type: 'string' },
      },
      required: ['adapterId', 'targetVersion', 'firewall', 'suffix', 'flag', '_id'],
    });
    expect(blankRequired(inputs, skeletonOf(inputs))).toEqual(['adapterId', 'targetVersion', 'firewall']);
    expect(blankRequired(inputs, { adapterId: null, targetVersion: '  ', firewall: 'fw-1', note: '' })).toEqual([
      'adapterId',
      'targetVersion',
    ]);
    // left out: the platform refuses the start and names them; a blank the schema names as a value of its own is a choice
    expect(blankRequired(inputs, {})).toEqual([]);
    expect(blankRequired(inputs, { adapterId: 0, targetVersion: '10.2', firewall: 'fw-1', suffix: '', flag: null, _id: '' })).toEqual([]);
    expect(blankRequired(inputs, { adapterId: false, targetVersion: '10.2', firewall: 'fw-1' })).toEqual([]);
    expect(listText(['a'])).toBe('a');
    expect(listText(['a', 'b', 'c'])).toBe('a, b and c');
  });

  it('are written one member a line, a short object on its member’s line, a long value indented below', () => {
    const long = { a: 'x'.repeat(30), b: 'y'.repeat(30) };
    const text = variablesText({ n: null, o: { device_name: 'my-device1' }, l: [1, 'two'], e: {}, long });
    expect(text).toBe(
      [
        '{',
        '  "n": null,',
        '  "o": { "device_name": "my-device1" },',
        '  "l": [1, "two"],',
        '  "e": {},',
        '  "long": {',
        `    "a": "${long.a}",`,
        `    "b": "${long.b}"`,
        '  }',
        '}',
      ].join('\n'),
    );
    expect(JSON.parse(text)).toEqual({ n: null, o: { device_name: 'my-device1' }, l: [1, 'two'], e: {}, long });
    expect(variablesText({})).toBe('{}');
    expect(variablesText({ emptied: undefined, kept: 1 })).toBe('{\n  "kept": 1\n}');
  });

  it('say what is wrong with JSON text before anything is sent', () => {
    expect(parseVariables('{ "a": 1 }')).toEqual({ variables: { a: 1 } });
    expect(parseVariables('  ')).toEqual({ variables: {} });
    expect(parseVariables('{ "a": 1, }')).toEqual({ problem: expect.stringMatching(/^The variables are not valid JSON: /) });
    expect(parseVariables('[1]')).toEqual({ problem: 'The variables must be a JSON object ({ "name": value, … }), not an array' });
    expect(parseVariables('null')).toEqual({ problem: expect.stringMatching(/not null$/) });
  });
});
