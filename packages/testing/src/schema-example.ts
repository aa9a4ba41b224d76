/** Exports store `.` and `$` in schema texts as `%2E` and `%24` (MongoDB's reserved characters): the example meant the plain ones. */
function unescaped(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/%2E/g, '.').replace(/%24/g, '$');
  if (Array.isArray(value)) return value.map(unescaped);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unescaped(v)]));
  return value;
}

/**
 * A value made from a JSON Schema's own examples, for running real documents (transformations,
 * workflows) on the inputs their authors described: `examples[0]`, else `default`, else `const` or
 * the first `enum` value, else built from `properties` / `items`, else the empty value of the
 * schema's (first) type (1 for numbers, so a divisor or a count works). Deterministic; `depth` stops runaway recursive schemas.
 */
export function exampleOf(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > 20) return null;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.examples) && s.examples.length > 0) return unescaped(structuredClone(s.examples[0]));
  if (s.default !== undefined) return structuredClone(s.default);
  if (s.const !== undefined) return structuredClone(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return structuredClone(s.enum[0]);
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) return exampleOf(options[0], depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'object' || (type === undefined && typeof s.properties === 'object' && s.properties !== null)) {
    const out: Record<string, unknown> = {};
    const properties = typeof s.properties === 'object' && s.properties !== null ? (s.properties as Record<string, unknown>) : {};
    for (const [key, sub] of Object.entries(properties)) out[key] = exampleOf(sub, depth + 1);
    return out;
  }
  if (type === 'array') {
    const items = Array.isArray(s.items) ? s.items[0] : s.items;
    if (items === undefined || items === null || typeof items !== 'object') return [];
    const item = items as Record<string, unknown>;
    const described =
      item.examples !== undefined ||
      item.default !== undefined ||
      item.properties !== undefined ||
      item.enum !== undefined ||
      item.const !== undefined;
    return described ? [exampleOf(items, depth + 1)] : [];
  }
  switch (type) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return 1; // a divisor or a count that works
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return null;
  }
}
