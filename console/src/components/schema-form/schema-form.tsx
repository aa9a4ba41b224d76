import Form from '@rjsf/core';
import { getUiOptions } from '@rjsf/utils';
import type { Experimental_DefaultFormStateBehavior, RJSFSchema, UiSchema } from '@rjsf/utils';
import { useMemo, useRef } from 'react';
import type { ReactNode } from 'react';
import { isFilledWhenShown, runSchemaOfForm } from '@nap/contracts/dist/form-schema';
import { isRecord } from '../../api/records';
import { focusFirstInvalid } from './focus';
import { CHOSEN_KIND, TEMPLATES } from './templates';
import { formValidator, isChoiceList } from './validator';
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
 * A required yes-or-no starts unanswered, not on "No" (RJSF's own default gives it `false`): left so, it is
 * refused as required, never sent as a "No" nobody chose. A schema's `default` still sets where it starts.
 */
const DEFAULTS: Experimental_DefaultFormStateBehavior = { requiredBooleanDefault: 'skip' };

/**
 * A JSON Schema rendered as a form by RJSF: labelled fields, defaults, and the schema's validation
 * messages (after a first submit, then live) as sentences naming each field, under it and read out
 * with it, every kind of control marked invalid while refused; a refused submit puts the focus on
 * the first invalid field of the form as it reads, and lists the fields to correct at the top.
 * Choices drawn as radio buttons or checkboxes (a list of choices is, unless its UI says otherwise)
 * are fieldsets named by the field's label; a field of alternatives (`oneOf`, `anyOf`) is a fieldset
 * with a chooser of the kind, the chosen kind's field beside it, and its problem said of the field.
 * A required yes-or-no starts unanswered (Yes and No radio buttons, neither chosen, unless its UI names
 * its widget), and is refused until answered; an optional one left unanswered is not sent. The radio
 * buttons of an optional field without a default (a yes-or-no, a choice) end with "No answer", which
 * takes a choice back: the value is left out again; an optional yes-or-no drawn as a lone checkbox
 * starts unanswered (a dash) and, once answered, has a "No answer" button that does the same.
 */
export function SchemaForm({ schema, uiSchema, formData, onChange, onSubmit, disabled, children }: SchemaFormProps) {
  const form = useRef<Form<FormData, RJSFSchema>>(null);
  const typed = useMemo(() => withChoiceTypes(schema) as RJSFSchema, [schema]);
  const choiceUi = useMemo(() => withChoiceUi(typed, uiSchema ?? {}), [typed, uiSchema]);
  const ui = useMemo(() => withItemLabels(typed, choiceUi), [typed, choiceUi]);
  const drawn = useMemo(() => withTickboxesAnswered(typed, choiceUi) as RJSFSchema, [typed, choiceUi]);
  return (
    <Form<FormData, RJSFSchema>
      ref={form}
      className="schema-form"
      schema={drawn}
      uiSchema={ui}
      experimental_defaultFormStateBehavior={DEFAULTS}
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
  if (!isRecord(schema)) return uiSchema;
  let ui = uiSchema;
  // a list of choices has no items of its own to label: its UI's `items` names its choices
  if (isRecord(schema.items) && schema.items.title === undefined && typeof ui.items !== 'function' && !isChoiceList(schema)) {
    const own: unknown = ui.items;
    const items = withItemLabels(schema.items, isRecord(own) ? (own as Ui) : {});
    if (items['ui:title'] === undefined)
      ui = { ...ui, items: (_item: unknown, index: number) => ({ ...items, 'ui:title': `Item ${index + 1}` }) };
  }
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    const current: unknown = ui[name];
    const member = withItemLabels(property, isRecord(current) ? (current as Ui) : {});
    if (member !== current && Object.keys(member).length > 0) ui = { ...ui, [name]: member };
  }
  return ui;
}

/** True for a schema of alternatives RJSF draws as a chooser of the kind and the chosen kind's field (not a select of constants). */
function isAlternatives(schema: Record<string, unknown>): boolean {
  const branches: unknown = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(branches) || Array.isArray(schema.enum)) return false;
  return !branches.every((branch) => isRecord(branch) && ('const' in branch || (Array.isArray(branch.enum) && branch.enum.length === 1)));
}

/** The UI keys a field shows once around it: said again by the chosen kind's field, they would be read twice. */
const AROUND_ONLY = new Set(['ui:help', 'ui:description', 'ui:title']);

/** The JSON type of `value` as a schema names it. */
function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'number' && Number.isInteger(value) ? 'integer' : typeof value;
}

/**
 * `schema` with each choice of constants that names no type (`oneOf: [{ const: 'fast', title: 'Fast' }, …]`)
 * given the type its constants share, at any depth: RJSF draws such a choice as a select only when it
 * knows the type. The constants accept what they accepted.
 */
function withChoiceTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withChoiceTypes);
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = DATA_KEYWORDS.has(key) ? value : withChoiceTypes(value);
  const branches: unknown = schema.oneOf ?? schema.anyOf;
  if (schema.type === undefined && Array.isArray(branches) && branches.length > 0 && branches.every((b) => isRecord(b) && 'const' in b)) {
    const types = new Set(branches.map((branch) => typeOf((branch as Record<string, unknown>).const)));
    if (types.size === 1) out.type = [...types][0];
  }
  return out;
}

/** Keywords whose value is data, never a schema to walk. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);

/** A kind's UI with the members that only mark the kind (`kind: { const: 'address' }`) hidden: the chooser says the kind. */
function withKindMarksHidden(kind: unknown, uiSchema: Ui): Ui {
  if (!isRecord(kind) || !isRecord(kind.properties)) return uiSchema;
  let ui = uiSchema;
  for (const [name, member] of Object.entries(kind.properties)) {
    if (isRecord(member) && 'const' in member && typeof member.const !== 'boolean' && ui[name] === undefined)
      ui = { ...ui, [name]: { 'ui:widget': 'hidden' } };
  }
  return ui;
}

/** `ui` with `options` added to its `ui:options`. */
function withOptions(ui: Ui, options: Record<string, boolean>): Ui {
  const own: unknown = ui['ui:options'];
  return { ...ui, 'ui:options': { ...(isRecord(own) ? (own as object) : {}), ...options } };
}

/**
 * True for a yes-or-no that must be answered and has no answer to start from: a boolean with no
 * `default` that is not held to one value (`const: true` is a box that must be ticked, and starts so).
 */
function isOpenYesOrNo(schema: unknown): boolean {
  if (!isRecord(schema) || schema.type !== 'boolean' || 'default' in schema || 'const' in schema) return false;
  return !Array.isArray(schema.enum) || schema.enum.length > 1;
}

/**
 * The UI of a yes-or-no that must be answered (a required member, an item of a list): Yes and No
 * radio buttons, neither chosen, unless its UI names its widget. A lone checkbox cannot say
 * "unanswered": left unticked, it would be read as a "No" nobody gave.
 */
function yesOrNoUi(schema: unknown, uiSchema: Ui): Ui {
  if (!isOpenYesOrNo(schema) || getUiOptions(uiSchema).widget !== undefined) return uiSchema;
  return withOptions({ ...uiSchema, 'ui:widget': 'radio' }, { inline: true });
}

/**
 * `uiSchema` with every list of choices drawn as a group of checkboxes (a `<select multiple>` asks for
 * Ctrl-click, and hides what is chosen once it scrolls) unless it names its widget, every yes-or-no
 * that must be answered as Yes and No radio buttons ({@link yesOrNoUi}), and every field of
 * alternatives (`oneOf`, `anyOf`) without a UI of its own per kind giving its kinds its UI but its
 * help and description, which stay around the whole field; each kind's UI marked {@link CHOSEN_KIND}.
 */
function withChoiceUi(schema: unknown, uiSchema: Ui): Ui {
  if (!isRecord(schema)) return uiSchema;
  let ui = uiSchema;
  if (isChoiceList(schema) && getUiOptions(ui).widget === undefined) ui = { ...ui, 'ui:widget': 'checkboxes' };
  if (isAlternatives(schema)) {
    const keyword = schema.oneOf !== undefined ? 'oneOf' : 'anyOf';
    const branches = schema[keyword] as unknown[];
    const given: unknown = ui[keyword];
    const shared = Object.fromEntries(Object.entries(ui).filter(([key]) => !AROUND_ONLY.has(key)));
    const kinds = Array.isArray(given)
      ? branches.map((_, index) => (isRecord(given[index]) ? (given[index] as Ui) : {}))
      : branches.map((branch) => withChoiceUi(branch, withKindMarksHidden(branch, shared)));
    ui = { ...ui, [keyword]: kinds.map((kind) => withOptions(kind, { [CHOSEN_KIND]: true })) };
  }
  const required = Array.isArray(schema.required) ? schema.required : [];
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    const current: unknown = ui[name];
    const own = isRecord(current) ? (current as Ui) : {};
    const member = withChoiceUi(property, required.includes(name) ? yesOrNoUi(property, own) : own);
    if (member !== own) ui = { ...ui, [name]: member };
  }
  if (isRecord(schema.items) && !isChoiceList(schema)) {
    const current: unknown = ui.items;
    const own = isRecord(current) ? (current as Ui) : {};
    const items = withChoiceUi(schema.items, yesOrNoUi(schema.items, own));
    if (items !== own) ui = { ...ui, items };
  }
  return ui;
}

/**
 * `schema` with each yes-or-no that must be answered and that its UI draws as a lone checkbox
 * starting unticked, as `false`, and each required list of choices without a `default` starting
 * empty, as `[]`: a checkbox has no unanswered state, its person sees "No" (none chosen) and can
 * leave it so (unanswered, the form would refuse boxes that look answered). A list that needs a
 * choice says so with `minItems`, which the form checks.
 */
function withTickboxesAnswered(schema: unknown, uiSchema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const ui = isRecord(uiSchema) ? uiSchema : {};
  const out: Record<string, unknown> = { ...schema };
  const required = Array.isArray(schema.required) ? schema.required : [];
  const isChecklist = (memberUi: unknown) => getUiOptions(isRecord(memberUi) ? (memberUi as Ui) : {}).widget === 'checkboxes';
  const isTickbox = (member: unknown, memberUi: unknown) =>
    isOpenYesOrNo(member) && getUiOptions(isRecord(memberUi) ? (memberUi as Ui) : {}).widget === 'checkbox';
  if (isRecord(schema.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, property]) => {
        const member = withTickboxesAnswered(property, ui[name]);
        if (!required.includes(name) || (isRecord(property) && 'default' in property)) return [name, member];
        if (isTickbox(property, ui[name])) return [name, { ...(member as object), default: false }];
        return [name, isChoiceList(property) && isChecklist(ui[name]) ? { ...(member as object), default: [] } : member];
      }),
    );
  }
  if (isRecord(schema.items)) {
    const items = withTickboxesAnswered(schema.items, ui.items);
    out.items = isTickbox(schema.items, ui.items) ? { ...(items as object), default: false } : items;
  }
  return out;
}

/** What a field whose list the form's source fills when shown says: the console does not call that source. */
export const TYPED_LIST_HELP = 'Type the value: its list of choices comes from a source this console does not call.';

type Ui = UiSchema<FormData, RJSFSchema>;

/** The UI schema of `schema`'s members, nested as RJSF reads it: enumNames as ui:enumNames, a help line on lists filled when shown. */
function adaptUi(schema: unknown, uiSchema: Ui): Ui {
  if (!isRecord(schema)) return uiSchema;
  const ui: Ui = { ...uiSchema };
  if (isFilledWhenShown(schema) || (isRecord(schema.items) && isFilledWhenShown(schema.items))) {
    const own: unknown = ui['ui:help'];
    ui['ui:help'] = typeof own === 'string' && own.trim() !== '' ? `${own.trim().replace(/\.$/, '')}. ${TYPED_LIST_HELP}` : TYPED_LIST_HELP;
  }
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    if (!isRecord(property)) continue;
    const current: unknown = ui[name];
    let member: Ui = isRecord(current) ? (current as Ui) : {};
    const enumNames: unknown = property.enumNames;
    if (Array.isArray(enumNames)) member = { ...member, 'ui:enumNames': enumNames.map(String) };
    // the names of a list's choices (Meraki's "Product Types"): RJSF reads them from the items' UI
    const itemNames: unknown = isRecord(property.items) ? property.items.enumNames : undefined;
    if (Array.isArray(itemNames) && itemNames.length > 0) {
      const items: unknown = member.items;
      member = { ...member, items: { ...(isRecord(items) ? items : {}), 'ui:enumNames': itemNames.map(String) } };
    }
    // a yes-or-no the form builder offers as its two values (`enum: [true, false]`) is a pair of radio buttons there
    if (property.type === 'boolean' && Array.isArray(property.enum) && getUiOptions(member).widget === undefined)
      member = {
        ...member,
        'ui:widget': 'radio',
        'ui:options': { ...(isRecord(member['ui:options']) ? member['ui:options'] : {}), inline: true },
      };
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
 * platform checks it (`runSchemaOfForm`). Nothing is asked beyond what the platform checks: a
 * required list of choices takes none (JSON Schema's `required` asks for the list, not for a
 * choice in it), unless the form says `minItems`, as a form that needs a choice does.
 */
export function adaptStudioForm(schema: RJSFSchema, uiSchema: Ui = {}): { schema: RJSFSchema; uiSchema: Ui } {
  return { schema: runSchemaOfForm(schema) as RJSFSchema, uiSchema: adaptUi(schema, uiSchema) };
}
