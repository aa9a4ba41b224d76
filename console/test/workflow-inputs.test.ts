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
import { COMMAND_TEMPLATE_RUNNER, PROVISION_VLAN } from './support/workflows';

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

  it('write as JSON what a form cannot hold: objects, lists, several types, composed schemas, no members', () => {
    const plain = { type: 'object', properties: { a: { type: 'string' } } };
    expect(isFormFriendly(plain)).toBe(true);
    expect(isFormFriendly({ ...plain, properties: { a: { type: 'object' } } })).toBe(false);
    expect(isFormFriendly({ ...plain, properties: { a: { type: ['string', 'null'] } } })).toBe(false);
    expect(isFormFriendly({ ...plain, properties: { a: {} } })).toBe(false);
    expect(isFormFriendly({ ...plain, required: ['b'] })).toBe(false);
    expect(isFormFriendly({ ...plain, oneOf: [] })).toBe(false);
    expect(isFormFriendly({ type: 'object', properties: { _id: { type: 'string' } } })).toBe(false);
    expect(isFormFriendly(undefined)).toBe(false);
    expect(inputsOf(undefined)).toEqual([]);
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
