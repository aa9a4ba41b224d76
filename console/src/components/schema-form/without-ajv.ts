/**
 * Stands in for `@rjsf/validator-ajv8`, which `@rjsf/core` imports only for its test registry
 * (`getTestRegistry`, never used here): Ajv compiles schemas with `new Function`, which the
 * console's Content-Security-Policy forbids. The console validates with `./validator`.
 */
export default {};
export function customizeValidator(): never {
  throw new Error('The console validates forms with @cfworker/json-schema, not Ajv');
}
