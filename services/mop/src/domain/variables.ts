/**
 * Template variables: `<!name!>` in commands and rules. Values are strings, numbers, booleans, or
 * arrays of them; an array value runs the command once per element.
 */

import { TEMPLATE_VARIABLE, variablesIn } from '@nap/contracts';
import { ownValue, setOwn } from '@nap/util';

/** A scalar value a variable can take in a command or rule. */
export type Scalar = string | number | boolean;

/** Most commands one template command may expand to (product of the array lengths). */
export const MAX_EXPANSIONS = 1_000;

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** The outcome of {@link substitute}: the text with every known scalar replaced. */
export interface Substitution {
  text: string;
  /** Variables without a value (absent or null); their placeholders stay in `text`. */
  missing: string[];
  /** Variables whose value is not a scalar (array or object); their placeholders stay in `text`. */
  invalid: string[];
}

/** Replaces `<!name!>` by the scalar value of `name`. */
export function substitute(text: string, values: Readonly<Record<string, unknown>>): Substitution {
  const missing: string[] = [];
  const invalid: string[] = [];
  const out = text.replace(TEMPLATE_VARIABLE, (whole, n: string) => {
    const value = ownValue(values, n);
    if (value === undefined || value === null) {
      if (!missing.includes(n)) missing.push(n);
      return whole;
    }
    if (!isScalar(value)) {
      if (!invalid.includes(n)) invalid.push(n);
      return whole;
    }
    return String(value);
  });
  return { text: out, missing, invalid };
}

/** One concrete command of a template command. */
export interface Expansion {
  evaluated: string;
  /** The value each variable of the command took. */
  parameters: Record<string, Scalar>;
}

/** What a template command becomes: commands to run, or the reason it is skipped. */
export type CommandExpansion =
  { kind: 'run'; expansions: Expansion[] } | { kind: 'skip'; parameters: Record<string, unknown>; message: string };

function quoteList(names: readonly string[]): string {
  return names.map((n) => `"${n}"`).join(', ');
}

/**
 * Expands `command` with `variables`: every array value multiplies the commands (the product of
 * the arrays, in order). A variable without a value, an empty array, an object or an array holding
 * non-scalars skips the command with a message naming the variables.
 */
export function expandCommand(command: string, variables: Readonly<Record<string, unknown>>): CommandExpansion {
  const names = variablesIn(command);
  const missing: string[] = [];
  const invalid: string[] = [];
  const empty: string[] = [];
  const axes: { name: string; values: Scalar[] }[] = [];
  const known: Record<string, unknown> = {};
  for (const n of names) {
    const value = ownValue(variables, n);
    if (value === undefined || value === null) {
      missing.push(n);
      continue;
    }
    setOwn(known, n, value);
    if (isScalar(value)) axes.push({ name: n, values: [value] });
    else if (Array.isArray(value) && value.every(isScalar)) {
      if (value.length === 0) empty.push(n);
      else axes.push({ name: n, values: value });
    } else invalid.push(n);
  }
  const reasons: string[] = [];
  if (missing.length > 0)
    reasons.push(
      `${missing.length === 1 ? 'variable' : 'variables'} ${quoteList(missing)} ${missing.length === 1 ? 'has' : 'have'} no value`,
    );
  if (empty.length > 0) reasons.push(`${quoteList(empty)} ${empty.length === 1 ? 'is an empty list' : 'are empty lists'}`);
  if (invalid.length > 0) reasons.push(`${quoteList(invalid)} must be a string, number, boolean or a list of them`);
  if (reasons.length > 0) return { kind: 'skip', parameters: known, message: `Skipped: ${reasons.join('; ')}` };

  const total = axes.reduce((n, axis) => n * axis.values.length, 1);
  if (total > MAX_EXPANSIONS) {
    return {
      kind: 'skip',
      parameters: known,
      message: `Skipped: the list variables would make ${total} commands, more than ${MAX_EXPANSIONS}`,
    };
  }
  let combos: Record<string, Scalar>[] = [{}];
  for (const axis of axes) {
    const next: Record<string, Scalar>[] = [];
    for (const combo of combos) for (const value of axis.values) next.push({ ...combo, [axis.name]: value });
    combos = next;
  }
  return { kind: 'run', expansions: combos.map((parameters) => ({ evaluated: substitute(command, parameters).text, parameters })) };
}
