/**
 * JSON forms from other platforms. Pure, with no import: the console uses it too.
 */

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The JSON Schema a form's data is checked against and asked with, from a JSON form's schema. A
 * form whose list is filled when it is shown (from an adapter, an integration or a platform call:
 * its `binding`) is stored with an empty `enum`; such an `enum` says where the choices come from,
 * not that no value is allowed, so it is left out (the value is then typed). Everything else is
 * kept as it is; the form's schema is not changed.
 */
export function runSchemaOfForm(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(runSchemaOfForm);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'enum' && Array.isArray(value) && value.length === 0) continue;
    // values, not schemas: kept exactly as they are
    out[key] = DATA_KEYWORDS.has(key) ? value : runSchemaOfForm(value);
  }
  return out;
}

/** Keywords whose value is data (a value, a list of values), never a schema to walk. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);

/** Whether a form's schema (or a member of it) holds a list filled when the form is shown: an empty `enum`. */
export function isFilledWhenShown(schema: unknown): boolean {
  return isObject(schema) && Array.isArray(schema.enum) && schema.enum.length === 0;
}
