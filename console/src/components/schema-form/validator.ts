import { Validator } from '@cfworker/json-schema';
import type { OutputUnit, Schema } from '@cfworker/json-schema';
import { createErrorHandler, toErrorSchema, unwrapErrorHandler, validationDataMerge } from '@rjsf/utils';
import type {
  CustomValidator,
  ErrorTransformer,
  RJSFSchema,
  RJSFValidationError,
  UiSchema,
  ValidationData,
  ValidatorType,
} from '@rjsf/utils';

/**
 * The form renderer's validator on @cfworker/json-schema, which interprets schemas instead of
 * compiling them to code: the console's Content-Security-Policy forbids `eval`, which Ajv (RJSF's
 * usual validator) needs. Messages come from the schema's own keywords.
 */

type FormData = Record<string, unknown>;

/** Keywords whose failure only says that something inside failed: the inner keyword's own error says what. */
const WRAPPERS = new Set([
  'properties',
  'items',
  'prefixItems',
  'allOf',
  '$ref',
  'dependentSchemas',
  'unevaluatedProperties',
  'additionalItems',
]);

const cache = new WeakMap<object, Validator>();

function validatorFor(schema: RJSFSchema, root?: RJSFSchema): Validator {
  const key = root && root !== schema ? { schema, root } : schema;
  const known = root && root !== schema ? undefined : cache.get(schema);
  if (known) return known;
  // a sub-schema checked on its own keeps the root's definitions for its $refs
  const withDefinitions: RJSFSchema = root && root !== schema ? { ...schema, definitions: root.definitions, $defs: root.$defs } : schema;
  const validator = new Validator(withDefinitions as Schema, '7', false);
  if (key === schema) cache.set(schema, validator);
  return validator;
}

/** `#/a/0/b` → `.a.0.b`: the property path RJSF hangs errors on. */
function propertyOf(instanceLocation: string): string {
  const pointer = instanceLocation.replace(/^#/, '');
  return pointer
    .split('/')
    .filter((part) => part !== '')
    .map((part) => `.${decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'))}`)
    .join('');
}

/** The title the schema gives the field at `.a.b` (what the person sees as its label), else its name. */
function titleAt(schema: RJSFSchema, property: string): string {
  let current: unknown = schema;
  let name = '';
  for (const part of property.split('.').filter(Boolean)) {
    name = part;
    const properties: unknown = current !== null && typeof current === 'object' ? (current as RJSFSchema).properties : undefined;
    current = properties !== null && typeof properties === 'object' ? (properties as Record<string, unknown>)[part] : undefined;
  }
  const title: unknown = current !== null && typeof current === 'object' ? (current as RJSFSchema).title : undefined;
  return typeof title === 'string' && title !== '' ? title : name || 'The form';
}

function toRjsfErrors(units: readonly OutputUnit[], schema: RJSFSchema): RJSFValidationError[] {
  const errors: RJSFValidationError[] = [];
  for (const unit of units) {
    if (WRAPPERS.has(unit.keyword)) continue;
    let property = propertyOf(unit.instanceLocation);
    let message = unit.error.replace(/^Instance /, 'Value ').replace(/\.$/, '');
    if (unit.keyword === 'required') {
      const missing = /"([^"]+)"/.exec(unit.error)?.[1];
      if (missing !== undefined) property = `${property}.${missing}`;
      message = 'is required';
    }
    errors.push({
      name: unit.keyword,
      property,
      message,
      schemaPath: unit.keywordLocation,
      stack: `${titleAt(schema, property)} ${message}`,
    });
  }
  return errors;
}

export const formValidator: ValidatorType<FormData, RJSFSchema> = {
  validateFormData(
    formData: FormData | undefined,
    schema: RJSFSchema,
    customValidate?: CustomValidator<FormData, RJSFSchema>,
    transformErrors?: ErrorTransformer<FormData, RJSFSchema>,
    uiSchema?: UiSchema<FormData, RJSFSchema>,
  ): ValidationData<FormData> {
    let errors = toRjsfErrors(validatorFor(schema).validate(formData ?? {}).errors, schema);
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const errorSchema = toErrorSchema<FormData>(errors);
    if (!customValidate) return { errors, errorSchema };
    const handler = customValidate(formData ?? {}, createErrorHandler<FormData>(formData ?? {}), uiSchema, errorSchema);
    return validationDataMerge<FormData>({ errors, errorSchema }, unwrapErrorHandler<FormData>(handler));
  },
  isValid(schema: RJSFSchema, formData: FormData | undefined, rootSchema: RJSFSchema): boolean {
    try {
      return validatorFor(schema, rootSchema).validate(formData ?? {}).valid;
    } catch {
      return false;
    }
  },
  rawValidation<Result = OutputUnit>(schema: RJSFSchema, formData?: FormData): { errors?: Result[]; validationError?: Error } {
    try {
      const result = validatorFor(schema).validate(formData ?? {});
      return { errors: result.errors as Result[] };
    } catch (err) {
      return { validationError: err instanceof Error ? err : new Error(String(err)) };
    }
  },
};
