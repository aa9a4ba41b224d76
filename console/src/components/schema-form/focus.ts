/** Where a field of a schema form is, by RJSF's ids (`root`, then each step of its path, joined by `_`). */

const ID_PREFIX = 'root';
const ID_SEPARATOR = '_';
const CONTROLS = 'input, select, textarea, button';

/** `.site.name` (the property of a validation error) → `root_site_name`, the id RJSF gives that field. */
export function idOfProperty(property: string): string {
  return [ID_PREFIX, ...property.split('.').filter(Boolean)].join(ID_SEPARATOR);
}

/**
 * The element that takes the focus for the field drawn as `element`: itself when it can, else the
 * control Tab would land on in it: a group of radios' chosen one, else its first control that is enabled.
 */
export function controlOf(element: Element | null): HTMLElement | null {
  if (!element) return null;
  if (element.matches(CONTROLS) || element.hasAttribute('tabindex')) return element as HTMLElement;
  return (
    element.querySelector<HTMLElement>('input[type="radio"]:checked:not(:disabled)') ??
    element.querySelector<HTMLElement>(
      CONTROLS.split(', ')
        .map((control) => `${control}:not(:disabled)`)
        .join(', '),
    )
  );
}

/**
 * Focuses the first field of `form` that says it is invalid, in the order the person reads the form
 * (not the order the validator found the problems in): the control, or the group of a refused list.
 */
export function focusFirstInvalid(form: HTMLFormElement | null | undefined): void {
  controlOf(form?.querySelector('[aria-invalid="true"]') ?? null)?.focus();
}
