import { useEffect, useRef, useState } from 'react';
import type { FormEvent, RefObject } from 'react';

/** What is wrong with which field: the browser's check, or the platform's refusal naming it. */
export type FieldProblems<F extends string> = Partial<Record<F, string>>;

export interface FieldForm<F extends string, V extends string> {
  values: Record<V, string>;
  problems: FieldProblems<F>;
  formRef: RefObject<HTMLFormElement | null>;
  /** The change handler of a field: it takes the value and forgets what was wrong with the field. */
  edit: (field: V) => (value: string) => void;
  /** Shows these problems and focuses the first field (in form order) that has one. */
  show: (found: FieldProblems<F>) => void;
  /** Forgets the problem of a field that changed without `edit` (a group of checkboxes). */
  forget: (field: F) => void;
  /**
   * The form's submit handler: the problems `check` finds in the values are shown, and the
   * platform's last refusal forgotten; with none, the problems shown go and `send` runs.
   */
  submit: (check: (values: Record<V, string>) => FieldProblems<F>, send: SendMutation) => (event: FormEvent) => void;
}

/** What `submit` sends: a mutation that takes nothing (React Query's `useMutation`). */
export interface SendMutation {
  mutate: () => void;
  reset: () => void;
}

/**
 * The state of a form whose every field shows what is wrong with it, as the console's dialogs do:
 * the values typed, the problems at their fields, and the focus on the first field with one once
 * its problem is on the page (so that a screen reader reads the two together). `order` is the
 * fields in the order they come; `target` finds a field that is not an input of its name.
 */
export function useFieldForm<F extends string, V extends F>(
  initial: Record<V, string>,
  order: readonly F[],
  target?: (form: HTMLFormElement, field: F) => HTMLElement | null,
): FieldForm<F, V> {
  const [values, setValues] = useState(initial);
  const [problems, setProblems] = useState<FieldProblems<F>>({});
  // a new object each time, so that the same field is focused again after a second refusal
  const [focusRequest, setFocusRequest] = useState<{ field: F }>();
  const formRef = useRef<HTMLFormElement>(null);

  useEffect(() => {
    const form = formRef.current;
    if (focusRequest === undefined || form === null) return;
    const element = target?.(form, focusRequest.field) ?? form.elements.namedItem(focusRequest.field);
    if (element instanceof HTMLInputElement) {
      element.focus();
      if (element.type === 'password' || element.type === 'text') element.select();
    } else if (element instanceof HTMLElement) element.focus();
  }, [focusRequest, target]);

  const forget = (field: F) => setProblems(({ [field]: _changed, ...others }) => others as FieldProblems<F>);
  const show = (found: FieldProblems<F>) => {
    setProblems(found);
    const first = order.find((field) => found[field] !== undefined);
    if (first !== undefined) setFocusRequest({ field: first });
  };
  return {
    values,
    problems,
    formRef,
    edit: (field) => (value) => {
      setValues((current) => ({ ...current, [field]: value }));
      forget(field);
    },
    show,
    forget,
    submit: (check, send) => (event) => {
      event.preventDefault();
      const found = check(values);
      if (Object.keys(found).length > 0) {
        send.reset();
        show(found);
        return;
      }
      show({});
      send.mutate();
    },
  };
}
