import { isFilledWhenShown, runSchemaOfForm } from '../src/form-schema';

describe('runSchemaOfForm', () => {
  it('leaves out the empty enums of lists a form fills when shown, and keeps everything else', () => {
    const schema = {
      type: 'object',
      required: ['region'],
      properties: {
        region: { type: 'string', enum: [], 'binding:body': { source: 'adapter' } },
        size: { type: 'string', enum: ['small', 'large'] },
        zones: { type: 'array', items: { type: 'string', enum: [] } },
        tiers: { anyOf: [{ enum: [] }, { type: 'integer' }] },
      },
    };
    const copy = JSON.parse(JSON.stringify(schema)) as unknown;
    expect(runSchemaOfForm(schema)).toEqual({
      type: 'object',
      required: ['region'],
      properties: {
        region: { type: 'string', 'binding:body': { source: 'adapter' } },
        size: { type: 'string', enum: ['small', 'large'] },
        zones: { type: 'array', items: { type: 'string' } },
        tiers: { anyOf: [{}, { type: 'integer' }] },
      },
    });
    // the form's own schema is not changed
    expect(schema).toEqual(copy);
  });

  it('leaves values alone: a default or const that holds an empty enum member is data, not a schema', () => {
    const schema = {
      type: 'object',
      default: { enum: [] },
      properties: { filter: { type: 'object', const: { enum: [] }, examples: [{ enum: [] }] }, size: { enum: ['a', []] } },
    };
    expect(runSchemaOfForm(schema)).toEqual(schema);
  });

  it('answers what is no object as it is', () => {
    expect(runSchemaOfForm(undefined)).toBeUndefined();
    expect(runSchemaOfForm(true)).toBe(true);
  });
});

describe('isFilledWhenShown', () => {
  it('is true of a member whose enum is empty, only', () => {
    expect(isFilledWhenShown({ type: 'string', enum: [] })).toBe(true);
    expect(isFilledWhenShown({ type: 'string', enum: ['a'] })).toBe(false);
    expect(isFilledWhenShown({ type: 'string' })).toBe(false);
    expect(isFilledWhenShown(undefined)).toBe(false);
  });
});
