/**
 * The variables of a MOP command template: `<!name!>` in its commands and rules, given values when
 * the template runs. Read by the MOP service and by the console (which asks for their values).
 * Pure: no imports, so that a browser bundle may carry it.
 */

/** A `<!name!>` placeholder, its name in the first group (global: use with `matchAll` or `replace`). */
export const TEMPLATE_VARIABLE = /<!(.+?)!>/g;

/** Names of the variables `text` uses, each once, in order of first use. */
export function variablesIn(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(TEMPLATE_VARIABLE)) {
    const n = m[1] as string;
    if (!names.includes(n)) names.push(n);
  }
  return names;
}
