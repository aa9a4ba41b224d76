import { SchemaExamples } from '@rjsf/core';
import {
  descriptionId,
  enumOptionSelectedValue,
  enumOptionValueDecoder,
  enumOptionValueEncoder,
  enumOptionsDeselectValue,
  enumOptionsIsSelected,
  enumOptionsSelectValue,
  examplesId,
  getInputProps,
  getOptionValueFormat,
  getTemplate,
  getUiOptions,
  optionId,
  schemaRequiresTrueValue,
} from '@rjsf/utils';
import type { BaseInputTemplateProps, RJSFSchema, RegistryWidgetsType, WidgetProps } from '@rjsf/utils';
import { useEffect, useRef } from 'react';
import type { ChangeEvent } from 'react';
import { fieldAria, isInvalid, kindChooserOf, labelId } from './field-aria';

/**
 * The controls of the console's schema forms: RJSF's default widgets, drawn again so that each
 * control (not only text and number inputs) says it is invalid and reads its problem out while the
 * schema's check refuses it, and says nothing of a problem otherwise. Behaviour (values, empty
 * values, enum encoding) is RJSF's own, through its helpers.
 */

type FormData = Record<string, unknown>;
type Props = WidgetProps<FormData, RJSFSchema>;

/** Text, numbers, e-mail, dates…: every `<input>` widget of RJSF goes through this template. */
export function InputTemplate(props: BaseInputTemplateProps<FormData, RJSFSchema>) {
  const {
    id,
    name: _name,
    htmlName,
    value,
    readonly,
    disabled,
    autofocus,
    onBlur,
    onFocus,
    onChange,
    onChangeOverride,
    options,
    schema,
    uiSchema: _uiSchema,
    registry: _registry,
    rawErrors,
    type,
    hideLabel: _hideLabel,
    hideError,
    label: _label,
    ...rest
  } = props;
  const inputProps = { ...rest, ...getInputProps<FormData, RJSFSchema>(schema, type, options) };
  const isNumber = inputProps.type === 'number' || inputProps.type === 'integer';
  const shown: unknown = isNumber ? (value || value === 0 ? value : '') : (value ?? '');
  const hasExamples = Array.isArray(schema.examples);
  return (
    <>
      <input
        id={id}
        name={htmlName || id}
        className="form-control"
        readOnly={readonly}
        disabled={disabled}
        autoFocus={autofocus}
        value={shown as string | number}
        {...inputProps}
        list={hasExamples ? examplesId(id) : undefined}
        onChange={
          onChangeOverride ??
          ((event: ChangeEvent<HTMLInputElement>) => onChange(event.target.value === '' ? options.emptyValue : event.target.value))
        }
        onBlur={(event) => onBlur(id, event.target.value)}
        onFocus={(event) => onFocus(id, event.target.value)}
        {...fieldAria(id, isInvalid(rawErrors, hideError), hasExamples)}
      />
      <SchemaExamples id={id} schema={schema} />
    </>
  );
}

/** A list of choices (an `enum`, a `oneOf` of constants, a list of them). */
function SelectWidget({
  schema,
  id,
  options,
  value,
  required,
  disabled,
  readonly,
  multiple = false,
  autofocus,
  onChange,
  onBlur,
  onFocus,
  placeholder,
  htmlName,
  label,
  hideLabel,
  rawErrors,
  hideError,
}: Props) {
  const { enumOptions, enumDisabled, emptyValue } = options;
  const format = getOptionValueFormat(options);
  const read = (select: HTMLSelectElement): unknown => {
    const chosen = multiple ? Array.from(select.selectedOptions, (option) => option.value) : select.value;
    return enumOptionValueDecoder<RJSFSchema>(chosen, enumOptions, format, emptyValue);
  };
  const selected = enumOptionSelectedValue<RJSFSchema>(value, enumOptions, multiple, format, multiple ? [] : '');
  // the chooser of a field of alternatives (`oneOf`, `anyOf`): named by the field's label and read out with its
  // description; never itself invalid, the chosen kind's control is (a problem is with what is written there)
  const field = kindChooserOf(id);
  const aria =
    field === undefined
      ? fieldAria(id, isInvalid(rawErrors, hideError))
      : { ...fieldAria(field, false), ...(hideLabel ? { 'aria-label': label } : { 'aria-labelledby': labelId(field) }) };
  return (
    <select
      id={id}
      name={htmlName || id}
      multiple={multiple}
      className="form-control"
      value={selected as string | string[]}
      required={required}
      disabled={disabled || readonly}
      autoFocus={autofocus}
      onChange={(event) => onChange(read(event.target))}
      onBlur={(event) => onBlur(id, read(event.target))}
      onFocus={(event) => onFocus(id, read(event.target))}
      {...aria}
    >
      {!multiple && schema.default === undefined ? <option value="">{placeholder ?? ''}</option> : null}
      {(enumOptions ?? []).map(({ value: choice, label }, i) => (
        <option key={String(choice)} value={enumOptionValueEncoder(choice, i, format)} disabled={enumDisabled?.includes(choice)}>
          {label}
        </option>
      ))}
    </select>
  );
}

/** What takes an optional question's answer back (a radio button, a checkbox's button): its value is left out, as if never answered. */
const NO_ANSWER = 'No answer';

/**
 * A yes-or-no (`boolean`): a checkbox that carries its own label. An optional one without a `default`
 * can be left unanswered, and taken back to that: while unanswered its box shows a dash (read out as
 * "mixed") beside the words {@link NO_ANSWER}; once answered, ticked or not, those words are a button
 * that takes the answer back, the value left out again (unticked alone would send "No", which
 * overrides what the platform fills a missing member with: the trigger's values, say). A required one
 * is answered from the start (see `withTickboxesAnswered`); one with a `default` has nothing to take
 * back to (left out, the platform fills in that default).
 */
function CheckboxWidget({
  schema,
  uiSchema,
  options,
  id,
  value,
  disabled,
  readonly,
  label,
  hideLabel,
  autofocus,
  onBlur,
  onFocus,
  onChange,
  registry,
  htmlName,
  required,
  rawErrors,
  hideError,
}: Props) {
  const box = useRef<HTMLInputElement>(null);
  const DescriptionFieldTemplate = getTemplate<'DescriptionFieldTemplate', FormData, RJSFSchema>(
    'DescriptionFieldTemplate',
    registry,
    options,
  );
  // an unchecked box fails the browser's `required`: only a box that must be ticked is required
  const mustBeTicked = schemaRequiresTrueValue<RJSFSchema>(schema) && required === true;
  const description = getUiOptions(uiSchema).widget === 'checkbox' ? undefined : (options.description ?? schema.description);
  const clearable = required !== true && schema.default === undefined && schema.const === undefined;
  const unanswered = clearable && typeof value !== 'boolean';
  const off = disabled === true || readonly === true;
  useEffect(() => {
    // a DOM property only: no attribute draws the dash
    if (box.current) box.current.indeterminate = unanswered;
  }, [unanswered]);
  return (
    <div className={`checkbox ${off ? 'disabled' : ''}`}>
      {!hideLabel && description ? (
        <DescriptionFieldTemplate
          id={descriptionId(id)}
          description={description}
          schema={schema}
          uiSchema={uiSchema}
          registry={registry}
        />
      ) : null}
      <div className="checkbox-line">
        <label>
          <input
            ref={box}
            type="checkbox"
            id={id}
            name={htmlName || id}
            checked={value === true}
            required={mustBeTicked}
            disabled={off}
            autoFocus={autofocus}
            onChange={(event) => onChange(event.target.checked)}
            onBlur={(event) => onBlur(id, event.target.checked)}
            onFocus={(event) => onFocus(id, event.target.checked)}
            {...fieldAria(id, isInvalid(rawErrors, hideError))}
          />
          {hideLabel ? null : (
            <span>
              {label}
              {mustBeTicked ? <span className="required">*</span> : null}
            </span>
          )}
        </label>
        {clearable && unanswered ? <span className="checkbox-none">{NO_ANSWER}</span> : null}
        {clearable && !unanswered && !off ? (
          <button
            type="button"
            className="checkbox-clear"
            aria-label={`${NO_ANSWER} to ${label || 'this question'}`}
            onClick={() => {
              onChange(undefined);
              // the button goes with the answer: the focus back on the box, not lost to the page
              box.current?.focus();
            }}
          >
            {NO_ANSWER}
          </button>
        ) : null}
      </div>
    </div>
  );
}

/** Long text, and the JSON a form asks for as text. */
function TextareaWidget({
  id,
  options,
  placeholder,
  value,
  required,
  disabled,
  readonly,
  autofocus,
  onChange,
  onBlur,
  onFocus,
  htmlName,
  rawErrors,
  hideError,
}: Props) {
  return (
    <textarea
      id={id}
      name={htmlName || id}
      className="form-control"
      value={typeof value === 'string' ? value : ''}
      placeholder={placeholder}
      required={required}
      disabled={disabled}
      readOnly={readonly}
      autoFocus={autofocus}
      rows={options.rows}
      onChange={(event) => onChange(event.target.value === '' ? options.emptyValue : event.target.value)}
      onBlur={(event) => onBlur(id, event.target.value)}
      onFocus={(event) => onFocus(id, event.target.value)}
      {...fieldAria(id, isInvalid(rawErrors, hideError))}
    />
  );
}

/**
 * Choices as radio buttons (`ui:widget: radio`, a yes-or-no the form builder offers as two values) or
 * checkboxes (a list of choices): the field's template draws them as a fieldset named by the field's
 * label (a group named by the label here when the label is hidden). Each button says the field is
 * invalid and reads its problem out, since a button is what has the focus. Radios share one name, so
 * the arrow keys move the choice within the group and Tab leaves it. Radio buttons of an optional
 * field with no `default` end with {@link NO_ANSWER}, chosen while nothing is: a radio button cannot
 * be unchosen, and this one leaves the value out again (as a select's empty option does). A required
 * field has none (it must be answered); a field with a `default` neither (left out, the platform
 * fills in that default, so "no answer" would mean it).
 */
function ChoicesWidget({
  schema,
  id,
  options,
  value,
  required,
  disabled,
  readonly,
  autofocus,
  onChange,
  onBlur,
  onFocus,
  htmlName,
  label,
  hideLabel,
  rawErrors,
  hideError,
  several,
}: Props & { several: boolean }) {
  const { inline = false, enumOptions = [], enumDisabled, emptyValue } = options;
  const format = getOptionValueFormat(options);
  const values: unknown[] = Array.isArray(value) ? value : [value];
  const decode = (raw: string): unknown => enumOptionValueDecoder<RJSFSchema>(raw, enumOptions, format, emptyValue);
  const aria = fieldAria(id, isInvalid(rawErrors, hideError));
  const group = hideLabel ? { role: several ? 'group' : 'radiogroup', 'aria-label': label } : {};
  const name = htmlName || id;
  const clearable = !several && !required && schema.default === undefined;
  return (
    <div className={`${several ? 'checkboxes' : 'field-radio-group'}${inline ? ' choices-inline' : ''}`} id={id} {...group}>
      {enumOptions.map((option, i) => {
        const off = disabled || readonly || (enumDisabled?.includes(option.value) ?? false);
        const change = (event: ChangeEvent<HTMLInputElement>) => {
          if (!several) onChange(option.value);
          else if (event.target.checked) onChange(enumOptionsSelectValue<RJSFSchema>(i, values, enumOptions));
          else onChange(enumOptionsDeselectValue<RJSFSchema>(i, values, enumOptions));
        };
        return (
          <label key={String(option.value)} className={`choice${off ? ' disabled' : ''}`}>
            <input
              type={several ? 'checkbox' : 'radio'}
              id={optionId(id, i)}
              name={name}
              checked={
                several ? enumOptionsIsSelected<RJSFSchema>(option.value, values) : enumOptionsIsSelected<RJSFSchema>(option.value, value)
              }
              required={!several && required}
              value={enumOptionValueEncoder(option.value, i, format)}
              disabled={off}
              autoFocus={autofocus === true && i === 0}
              onChange={change}
              onBlur={(event) => onBlur(id, decode(event.target.value))}
              onFocus={(event) => onFocus(id, decode(event.target.value))}
              {...aria}
            />
            <span>{option.label}</span>
          </label>
        );
      })}
      {clearable ? (
        <label className={`choice choice-none${disabled || readonly ? ' disabled' : ''}`}>
          <input
            type="radio"
            id={optionId(id, enumOptions.length)}
            name={name}
            checked={value === undefined || value === emptyValue}
            value=""
            disabled={disabled || readonly}
            onChange={() => onChange(emptyValue)}
            onBlur={() => onBlur(id, emptyValue)}
            onFocus={() => onFocus(id, emptyValue)}
            {...aria}
          />
          <span>{NO_ANSWER}</span>
        </label>
      ) : null}
    </div>
  );
}

const RadioWidget = (props: Props) => <ChoicesWidget {...props} several={false} />;
const CheckboxesWidget = (props: Props) => <ChoicesWidget {...props} several />;

/** The widgets the console draws itself, over RJSF's defaults of the same names. */
export const WIDGETS: RegistryWidgetsType<FormData, RJSFSchema> = {
  SelectWidget,
  CheckboxWidget,
  TextareaWidget,
  RadioWidget,
  CheckboxesWidget,
};
