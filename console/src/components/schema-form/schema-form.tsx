import Form, { getDefaultRegistry } from '@rjsf/core';
import { getUiOptions } from '@rjsf/utils';
import type { BaseInputTemplateProps, DescriptionFieldProps, RJSFSchema, UiSchema } from '@rjsf/utils';
import type { ReactNode } from 'react';
import { isFilledWhenShown, runSchemaOfForm } from '@nap/contracts/dist/form-schema';
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
 * A field's description, as text (never markdown). A field whose label is its schema's title names
 * the variable it sets first (`ui:options.variable`), in code type: the name the workflow's tasks
 * and the platform's refusals use.
 */
function DescriptionField({ id, description, schema, uiSchema }: DescriptionFieldProps<FormData, RJSFSchema>) {
  const variable = getUiOptions<FormData, RJSFSchema>(uiSchema).variable;
  if (typeof variable === 'string') {
    const text = typeof schema.description === 'string' ? schema.description : '';
    return (
      <div id={id} className="field-description">
        <code className="field-variable">{variable}</code>
        {text ? <span>: {text}</span> : null}
      </div>
    );
  }
  if (!description) return null;
  return (
    <div id={id} className="field-description">
      {description}
    </div>
  );
}

const { BaseInputTemplate } = getDefaultRegistry<FormData, RJSFSchema>().templates;

/** RJSF's text and number field, marked invalid while the schema's check refuses it: a screen reader says so, not only the red frame. */
function InputField(props: BaseInputTemplateProps<FormData, RJSFSchema>) {
  return <BaseInputTemplate {...props} aria-invalid={props.rawErrors !== undefined && props.rawErrors.length > 0 ? true : undefined} />;
}

const TEMPLATES = { DescriptionFieldTemplate: DescriptionField, BaseInputTemplate: InputField };

/**
 * A JSON Schema rendered as a form by RJSF: labelled fields, defaults, and the schema's validation
 * messages shown beside the fields (after a first submit, then live), the focus on the first wrong one.
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
      templates={TEMPLATES}
      focusOnFirstError
      // the errors are shown in the form; without a handler RJSF also writes them to the browser's console
      onError={() => undefined}
      noHtml5Validate
      onChange={(event) => onChange(event.formData ?? {})}
      onSubmit={(event) => onSubmit(event.formData ?? {})}
    >
      {children}
    </Form>
  );
}

/** What a field whose list the form's source fills when shown says: the console does not call that source. */
export const TYPED_LIST_HELP = 'Type the value: its list of choices comes from a source this console does not call.';

type Ui = UiSchema<FormData, RJSFSchema>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The UI schema of `schema`'s members, nested as RJSF reads it: enumNames as ui:enumNames, a help line on lists filled when shown. */
function adaptUi(schema: unknown, uiSchema: Ui): Ui {
  if (!isObject(schema)) return uiSchema;
  const ui: Ui = { ...uiSchema };
  if (isFilledWhenShown(schema) || (isObject(schema.items) && isFilledWhenShown(schema.items))) {
    const own: unknown = ui['ui:help'];
    ui['ui:help'] = typeof own === 'string' && own.trim() !== '' ? `${own.trim().replace(/\.$/, '')}. ${TYPED_LIST_HELP}` : TYPED_LIST_HELP;
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property)) continue;
    const current: unknown = ui[name];
    let member: Ui = isObject(current) ? (current as Ui) : {};
    const enumNames: unknown = property.enumNames;
    if (Array.isArray(enumNames)) member = { ...member, 'ui:enumNames': enumNames.map(String) };
    member = adaptUi(property, member);
    if (Object.keys(member).length > 0) ui[name] = member;
  }
  return ui;
}

/**
 * A studio form's schema as RJSF reads it: the older `enumNames` member of the platform's JSON
 * forms becomes the `ui:enumNames` RJSF understands (so that a select shows "Manchester", not "2"),
 * at any depth; a list the form's source fills when it is shown (an empty `enum`, bound to an
 * adapter or a call the console does not make) becomes a field to type in, saying so, as the
 * platform checks it (`runSchemaOfForm`).
 */
export function adaptStudioForm(schema: RJSFSchema, uiSchema: Ui = {}): { schema: RJSFSchema; uiSchema: Ui } {
  return { schema: runSchemaOfForm(schema) as RJSFSchema, uiSchema: adaptUi(schema, uiSchema) };
}
