import Form from '@rjsf/core';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { useMemo, useRef } from 'react';
import type { ReactNode } from 'react';
import { isFilledWhenShown, runSchemaOfForm } from '@nap/contracts/dist/form-schema';
import { focusFirstInvalid } from './focus';
import { TEMPLATES } from './templates';
import { formValidator } from './validator';
import { InputTemplate, WIDGETS } from './widgets';
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

const ALL_TEMPLATES = { ...TEMPLATES, BaseInputTemplate: InputTemplate };

/**
 * A JSON Schema rendered as a form by RJSF: labelled fields, defaults, and the schema's validation
 * messages (after a first submit, then live) as sentences naming each field, under it and read out
 * with it, every kind of control marked invalid while refused; a refused submit puts the focus on
 * the first invalid field of the form as it reads, and lists the fields to correct at the top.
 */
export function SchemaForm({ schema, uiSchema, formData, onChange, onSubmit, disabled, children }: SchemaFormProps) {
  const form = useRef<Form<FormData, RJSFSchema>>(null);
  const ui = useMemo(() => withItemLabels(schema, uiSchema ?? {}), [schema, uiSchema]);
  return (
    <Form<FormData, RJSFSchema>
      ref={form}
      className="schema-form"
      schema={schema}
      uiSchema={ui}
      formData={formData}
      validator={formValidator}
      disabled={disabled ?? false}
      showErrorList="top"
      templates={ALL_TEMPLATES}
      widgets={WIDGETS}
      // the first in the form as it reads, not the first the validator found (a `required` comes before the members' own)
      focusOnFirstError={() => focusFirstInvalid(form.current?.formElement.current as HTMLFormElement | null | undefined)}
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

/**
 * `uiSchema` with the items of every list whose items have no title labelled `Item 1`, `Item 2`…
 * (RJSF labels them `<list title>-1`), as the problems name them (`Item 1 of Switches is required.`);
 * the list's own label says which list.
 */
function withItemLabels(schema: unknown, uiSchema: Ui): Ui {
  if (!isObject(schema)) return uiSchema;
  let ui = uiSchema;
  if (isObject(schema.items) && schema.items.title === undefined && typeof ui.items !== 'function') {
    const own: unknown = ui.items;
    const items = withItemLabels(schema.items, isObject(own) ? (own as Ui) : {});
    if (items['ui:title'] === undefined)
      ui = { ...ui, items: (_item: unknown, index: number) => ({ ...items, 'ui:title': `Item ${index + 1}` }) };
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    const current: unknown = ui[name];
    const member = withItemLabels(property, isObject(current) ? (current as Ui) : {});
    if (member !== current && Object.keys(member).length > 0) ui = { ...ui, [name]: member };
  }
  return ui;
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
