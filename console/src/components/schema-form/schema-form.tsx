import Form from '@rjsf/core';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import type { ReactNode } from 'react';
import { formValidator } from './validator';
import './schema-form.css';

type FormData = Record<string, unknown>;

interface SchemaFormProps {
  schema: RJSFSchema;
  uiSchema?: UiSchema<FormData, RJSFSchema>;
  formData: FormData;
  onChange: (data: FormData) => void;
  onSubmit: (data: FormData) => void;
  disabled?: boolean;
  /** The form's own buttons (the submit button among them). */
  children: ReactNode;
}

/**
 * A JSON Schema rendered as a form by RJSF: labelled fields, defaults, and the schema's validation
 * messages shown beside the fields (after a first submit, then live).
 */
export function SchemaForm({ schema, uiSchema, formData, onChange, onSubmit, disabled, children }: SchemaFormProps) {
  return (
    <Form<FormData, RJSFSchema>
      className="schema-form"
      schema={schema}
      {...(uiSchema ? { uiSchema } : {})}
      formData={formData}
      validator={formValidator}
      disabled={disabled ?? false}
      showErrorList="top"
      noHtml5Validate
      onChange={(event) => onChange(event.formData ?? {})}
      onSubmit={(event) => onSubmit(event.formData ?? {})}
    >
      {children}
    </Form>
  );
}

/**
 * A studio form's schema as RJSF reads it: the older `enumNames` member of the platform's JSON
 * forms becomes the `ui:enumNames` RJSF understands (so that a select shows "Manchester", not "2").
 */
export function adaptStudioForm(
  schema: RJSFSchema,
  uiSchema: UiSchema<FormData, RJSFSchema> = {},
): { schema: RJSFSchema; uiSchema: UiSchema<FormData, RJSFSchema> } {
  const ui: UiSchema<FormData, RJSFSchema> = { ...uiSchema };
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (typeof property !== 'object' || property === null) continue;
    const enumNames: unknown = (property as Record<string, unknown>).enumNames;
    if (Array.isArray(enumNames)) {
      const current: unknown = ui[name];
      ui[name] = { ...(typeof current === 'object' && current !== null ? current : {}), 'ui:enumNames': enumNames.map(String) };
    }
  }
  return { schema, uiSchema: ui };
}
