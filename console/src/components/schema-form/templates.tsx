import { getDefaultRegistry } from '@rjsf/core';
import { buttonId, canExpand, descriptionId, errorId, getTemplate, getUiOptions, titleId } from '@rjsf/utils';
import type {
  ArrayFieldItemButtonsTemplateProps,
  ArrayFieldTemplateProps,
  DescriptionFieldProps,
  ErrorListProps,
  FieldErrorProps,
  FieldTemplateProps,
  IconButtonProps,
  MultiSchemaFieldTemplateProps,
  ObjectFieldTemplateProps,
  RJSFSchema,
  TemplatesType,
  TitleFieldProps,
  UiSchema,
} from '@rjsf/utils';
import type { MouseEvent } from 'react';
import { StatusIcon } from '../status-icon';
import { fieldAria, isInvalid, labelId } from './field-aria';
import { controlOf, idOfProperty } from './focus';
import { isChoiceList } from './validator';

/**
 * The templates of the console's schema forms: each field's problem as a sentence naming it, with an
 * icon (not told by colour alone) and an id its control points at; groups (lists, nested objects)
 * that say they are invalid when the problem is theirs; a summary of the fields to correct at the top.
 */

type FormData = Record<string, unknown>;

/**
 * The `ui:options` member that marks the UI of a kind of a field of alternatives (`oneOf`, `anyOf`):
 * drawn as the chosen kind's field, its label is kept for screen readers only, since the chooser
 * shows the kind's name just above it.
 */
export const CHOSEN_KIND = 'chosenKind';

/** The class of a label kept for screen readers only (the console's global styles). */
function labelClass(uiSchema: UiSchema<FormData, RJSFSchema> | undefined, base?: string): string | undefined {
  const hidden = getUiOptions<FormData, RJSFSchema>(uiSchema)[CHOSEN_KIND] === true;
  return [base, hidden ? 'visually-hidden' : undefined].filter(Boolean).join(' ') || undefined;
}

/** The title of a list or an object (its fieldset's legend), for screen readers only on a chosen kind's field. */
function TitleField({ id, title, required, uiSchema, optionalDataControl }: TitleFieldProps<FormData, RJSFSchema>) {
  return (
    <legend id={id} className={labelClass(uiSchema)}>
      {title}
      {required ? <span className="required">*</span> : null}
      {optionalDataControl ? <span className="pull-right">{optionalDataControl}</span> : null}
    </legend>
  );
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

/** What is wrong with one field: sentences naming it (the validator writes them so), under it, read out with its control. */
function FieldErrorTemplate({ errors = [], fieldPathId }: FieldErrorProps<FormData, RJSFSchema>) {
  const sentences = errors.filter((error) => error !== '' && error !== null && error !== undefined);
  if (sentences.length === 0) return null;
  return (
    <div id={errorId(fieldPathId)} className="field-problem">
      <StatusIcon status="error" className="field-problem-icon" />
      <span>
        {sentences.map((sentence, i) => (
          // the sentences of one field, in the validator's order, never reordered
          <span key={i}>
            {i > 0 ? ' ' : null}
            {sentence}
          </span>
        ))}
      </span>
    </div>
  );
}

/** Moves the focus to the control of the field `id` (a summary line's link does, rather than scroll to it without focus). */
function goTo(event: MouseEvent<HTMLAnchorElement>, id: string) {
  const target = controlOf(event.currentTarget.ownerDocument.getElementById(id));
  if (!target) return;
  event.preventDefault();
  target.focus();
}

/**
 * Above the form after a refused submit: how many fields to correct, each a link to its control,
 * named by its label. The sentences themselves are under the fields, read out with them.
 */
function ErrorListTemplate({ errors }: ErrorListProps<FormData, RJSFSchema>) {
  const fields = new Map<string, string>();
  for (const error of errors) {
    const id = idOfProperty(error.property ?? '');
    if (!fields.has(id)) fields.set(id, error.title ?? error.stack);
  }
  if (fields.size === 0) return null;
  return (
    <div className="errors">
      <p className="errors-title">
        <StatusIcon status="error" className="field-problem-icon" />
        Nothing was sent: {fields.size === 1 ? 'a field needs' : `${fields.size} fields need`} a change.
      </p>
      <ul>
        {[...fields].map(([id, label]) => (
          <li key={id}>
            <a href={`#${id}`} onClick={(event) => goTo(event, id)}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * A list: a group named by its title, invalid (and reachable by the focus, to be read out) while the
 * list itself is refused (too few items, the same item twice); each item a field of its own.
 */
function ArrayFieldTemplate(props: ArrayFieldTemplateProps<FormData, RJSFSchema>) {
  const {
    canAdd,
    className,
    disabled,
    fieldPathId,
    uiSchema,
    items,
    optionalDataControl,
    onAddClick,
    readonly,
    registry,
    required,
    schema,
    title,
    rawErrors,
  } = props;
  const options = getUiOptions<FormData, RJSFSchema>(uiSchema);
  const ArrayFieldTitleTemplate = getTemplate<'ArrayFieldTitleTemplate', FormData, RJSFSchema>(
    'ArrayFieldTitleTemplate',
    registry,
    options,
  );
  const ArrayFieldDescriptionTemplate = getTemplate<'ArrayFieldDescriptionTemplate', FormData, RJSFSchema>(
    'ArrayFieldDescriptionTemplate',
    registry,
    options,
  );
  const { AddButton } = registry.templates.ButtonTemplates;
  const editable = !readonly && !disabled;
  const invalid = isInvalid(rawErrors);
  const label = options.title ?? title;
  return (
    <fieldset className={className} id={fieldPathId.$id} tabIndex={invalid ? -1 : undefined} {...fieldAria(fieldPathId, invalid)}>
      <ArrayFieldTitleTemplate
        fieldPathId={fieldPathId}
        title={label}
        required={required}
        schema={schema}
        uiSchema={uiSchema}
        registry={registry}
        optionalDataControl={editable ? optionalDataControl : undefined}
      />
      <ArrayFieldDescriptionTemplate
        fieldPathId={fieldPathId}
        description={options.description ?? schema.description}
        schema={schema}
        uiSchema={uiSchema}
        registry={registry}
      />
      {editable ? undefined : optionalDataControl}
      <div className="array-item-list">{items}</div>
      {canAdd ? (
        <AddButton
          id={buttonId(fieldPathId, 'add')}
          className="rjsf-array-item-add"
          onClick={onAddClick}
          disabled={disabled || readonly}
          uiSchema={uiSchema}
          registry={registry}
          aria-label={label ? `Add an item to ${label}` : 'Add an item'}
        />
      ) : null}
    </fieldset>
  );
}

/** A nested object: a group named by its title, invalid while the object itself is refused (a member's problem is the member's). */
function ObjectFieldTemplate(props: ObjectFieldTemplateProps<FormData, RJSFSchema>) {
  const {
    className,
    description,
    disabled,
    formData,
    fieldPathId,
    onAddProperty,
    optionalDataControl,
    properties,
    readonly,
    registry,
    required,
    schema,
    title,
    uiSchema,
    errorSchema,
  } = props;
  const options = getUiOptions<FormData, RJSFSchema>(uiSchema);
  const TitleFieldTemplate = getTemplate<'TitleFieldTemplate', FormData, RJSFSchema>('TitleFieldTemplate', registry, options);
  const DescriptionFieldTemplate = getTemplate<'DescriptionFieldTemplate', FormData, RJSFSchema>(
    'DescriptionFieldTemplate',
    registry,
    options,
  );
  if ((schema.oneOf ?? schema.anyOf) && !schema.properties && properties.length === 0) return null;
  const { AddButton } = registry.templates.ButtonTemplates;
  const editable = !readonly && !disabled;
  const own = errorSchema?.__errors ?? [];
  const invalid = own.length > 0;
  return (
    <fieldset className={className} id={fieldPathId.$id} tabIndex={invalid ? -1 : undefined} {...fieldAria(fieldPathId, invalid)}>
      {title ? (
        <TitleFieldTemplate
          id={titleId(fieldPathId)}
          title={title}
          required={required}
          schema={schema}
          uiSchema={uiSchema}
          registry={registry}
          optionalDataControl={editable ? optionalDataControl : undefined}
        />
      ) : null}
      {description ? (
        <DescriptionFieldTemplate
          id={descriptionId(fieldPathId)}
          description={description}
          schema={schema}
          uiSchema={uiSchema}
          registry={registry}
        />
      ) : null}
      {editable || !title ? undefined : optionalDataControl}
      {properties.map((property) => property.content)}
      {canExpand<FormData, RJSFSchema>(schema, uiSchema, formData) ? (
        <AddButton
          id={buttonId(fieldPathId, 'add')}
          className="rjsf-object-property-expand"
          onClick={onAddProperty}
          disabled={disabled || readonly}
          uiSchema={uiSchema}
          registry={registry}
        />
      ) : null}
    </fieldset>
  );
}

/**
 * Whether a field is marked as needing an answer (`*`): a required one, but a list of choices by its
 * `minItems` alone: required, it is always sent, and none chosen is an answer the form takes; with a
 * `minItems`, even an optional one is refused until a choice is ticked (its boxes cannot leave it out).
 */
function needsAnswer(schema: RJSFSchema, required: boolean | undefined): boolean {
  if (!isChoiceList(schema)) return required === true;
  return typeof schema.minItems === 'number' && schema.minItems > 0;
}

/** True for a field drawn as one control per choice (radio buttons, checkboxes): a group, not one control a label points at. */
function isChoiceGroup(widget: unknown): boolean {
  return widget === 'radio' || widget === 'checkboxes';
}

/**
 * Every field: its label, description, control, problem and help. A field of choices (radio buttons,
 * checkboxes) and a field of alternatives (`oneOf`, `anyOf`: a chooser of the kind and the chosen
 * kind's field) are groups: a fieldset named by its legend, the field's label. A group of choices
 * says it is invalid while its field has a problem.
 */
function FieldTemplate(props: FieldTemplateProps<FormData, RJSFSchema>) {
  const { id, label, children, errors, help, description, hidden, required, displayLabel, registry, uiSchema, schema } = props;
  const { rawErrors, hideError } = props;
  const options = getUiOptions<FormData, RJSFSchema>(uiSchema);
  const WrapIfAdditionalTemplate = getTemplate<'WrapIfAdditionalTemplate', FormData, RJSFSchema>(
    'WrapIfAdditionalTemplate',
    registry,
    options,
  );
  if (hidden) return <div className="hidden">{children}</div>;
  const choices = isChoiceGroup(options.widget);
  const alternatives = (schema.oneOf ?? schema.anyOf) !== undefined && !registry.schemaUtils.isSelect(schema);
  const star = needsAnswer(schema, required) ? <span className="required">*</span> : null;
  if (!choices && !alternatives) {
    return (
      <WrapIfAdditionalTemplate {...props}>
        {displayLabel && options.widget !== 'checkbox' && label ? (
          <label className={labelClass(uiSchema, 'control-label')} htmlFor={id}>
            {label}
            {star}
          </label>
        ) : null}
        {displayLabel && description ? description : null}
        {children}
        {errors}
        {help}
      </WrapIfAdditionalTemplate>
    );
  }
  return (
    <WrapIfAdditionalTemplate {...props}>
      <fieldset
        className={choices ? 'field-choices' : 'field-alternatives'}
        aria-invalid={choices && isInvalid(rawErrors, hideError) ? true : undefined}
      >
        {/* an object of alternatives names itself here too: RJSF leaves its title to an object field that draws none */}
        {(displayLabel || (alternatives && options.label !== false)) && label ? (
          <legend id={labelId(id)} className={labelClass(uiSchema, 'control-label')}>
            {label}
            {star}
          </legend>
        ) : null}
        {displayLabel && description ? description : null}
        {children}
        {errors}
        {help}
      </fieldset>
    </WrapIfAdditionalTemplate>
  );
}

/**
 * A field of alternatives: the chooser of the kind, then the chosen kind's field, whose own label is
 * left to screen readers (its UI is marked {@link CHOSEN_KIND}: the chooser shows the kind's name just above it).
 */
function MultiSchemaFieldTemplate({ selector, optionSchemaField }: MultiSchemaFieldTemplateProps<FormData, RJSFSchema>) {
  return (
    <div className="field-alternative">
      {selector}
      {optionSchemaField}
    </div>
  );
}

/** A button of a list, in words: RJSF's default draws a glyph of a font the console does not load. */
function wordButton(words: string, danger = false) {
  return function WordButton({
    iconType: _iconType,
    icon: _icon,
    className,
    uiSchema: _uiSchema,
    registry: _registry,
    ...rest
  }: IconButtonProps<FormData, RJSFSchema>) {
    return (
      <button type="button" className={`button ${danger ? 'button-danger' : ''} ${className ?? ''}`} {...rest}>
        {words}
      </button>
    );
  };
}

/** An item's buttons, each named with the item it acts on ("Remove item 2"): a list of "Remove" says not which. */
function ArrayFieldItemButtonsTemplate(props: ArrayFieldItemButtonsTemplateProps<FormData, RJSFSchema>) {
  const {
    disabled,
    readonly,
    hasCopy,
    hasMoveDown,
    hasMoveUp,
    hasRemove,
    fieldPathId,
    index,
    onCopyItem,
    onRemoveItem,
    onMoveDownItem,
    onMoveUpItem,
    registry,
    uiSchema,
  } = props;
  const { CopyButton, MoveDownButton, MoveUpButton, RemoveButton } = registry.templates.ButtonTemplates;
  const off = disabled === true || readonly === true;
  const item = `item ${index + 1}`;
  const common = { uiSchema, registry };
  return (
    <>
      {hasMoveUp || hasMoveDown ? (
        <>
          <MoveUpButton
            id={buttonId(fieldPathId, 'moveUp')}
            className="rjsf-array-item-move-up"
            disabled={off || !hasMoveUp}
            onClick={onMoveUpItem}
            aria-label={`Move up ${item}`}
            {...common}
          />
          <MoveDownButton
            id={buttonId(fieldPathId, 'moveDown')}
            className="rjsf-array-item-move-down"
            disabled={off || !hasMoveDown}
            onClick={onMoveDownItem}
            aria-label={`Move down ${item}`}
            {...common}
          />
        </>
      ) : null}
      {hasCopy ? (
        <CopyButton
          id={buttonId(fieldPathId, 'copy')}
          className="rjsf-array-item-copy"
          disabled={off}
          onClick={onCopyItem}
          aria-label={`Copy ${item}`}
          {...common}
        />
      ) : null}
      {hasRemove ? (
        <RemoveButton
          id={buttonId(fieldPathId, 'remove')}
          className="rjsf-array-item-remove"
          disabled={off}
          onClick={onRemoveItem}
          aria-label={`Remove ${item}`}
          {...common}
        />
      ) : null}
    </>
  );
}

const { ButtonTemplates } = getDefaultRegistry<FormData, RJSFSchema>().templates;

/** The templates the console draws itself, over RJSF's defaults. */
export const TEMPLATES: Partial<TemplatesType<FormData, RJSFSchema>> = {
  DescriptionFieldTemplate: DescriptionField,
  TitleFieldTemplate: TitleField,
  FieldTemplate,
  MultiSchemaFieldTemplate,
  FieldErrorTemplate,
  ErrorListTemplate,
  ArrayFieldTemplate,
  ArrayFieldItemButtonsTemplate,
  ObjectFieldTemplate,
  ButtonTemplates: {
    ...ButtonTemplates,
    AddButton: wordButton('Add'),
    RemoveButton: wordButton('Remove', true),
    MoveUpButton: wordButton('Move up'),
    MoveDownButton: wordButton('Move down'),
    CopyButton: wordButton('Copy'),
  },
};
