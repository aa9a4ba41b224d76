import nunjucks from 'nunjucks';
import { AppError, assertJsonDepth } from '@nap/contracts';

// Autoescape off (configuration text, not HTML). The strict environment throws when a placeholder
// would print an undefined value, instead of leaving a blank in a device configuration; the lenient
// one, identical but for that, tells such a failure from every other one. `dev` keeps nunjucks'
// own TemplateError (without it nunjucks rethrows a plain Error carrying only the message).
const OPTIONS = { autoescape: false, trimBlocks: true, lstripBlocks: true, dev: true } as const;
const strict = new nunjucks.Environment(null, { ...OPTIONS, throwOnUndefined: true });
const lenient = new nunjucks.Environment(null, { ...OPTIONS, throwOnUndefined: false });

function isTemplateError(err: unknown): err is nunjucks.lib.TemplateError {
  return err instanceof nunjucks.lib.TemplateError;
}

/** True when the template renders once printing an undefined value is allowed. */
function rendersLeniently(text: string, variables: Record<string, unknown>): boolean {
  try {
    lenient.renderString(text, variables);
    return true;
  } catch (err) {
    if (isTemplateError(err)) return false;
    throw err;
  }
}

/**
 * Renders a device template: `{{ name }}` placeholders (and nunjucks tags) filled from `variables`.
 * Strict: a placeholder that would print an undefined value fails with
 * `DEVICE_TEMPLATE_RENDER_FAILED` naming the variable(s) the template prints and was not given;
 * undefined names in conditions (`{% if x %}`, `x is defined`) and behind the `default` filter are
 * allowed. Syntax and other template errors fail with the same code and nunjucks' line and column.
 * Errors are told apart by type (nunjucks' `TemplateError`) and by rendering again without the
 * undefined-value check, never by their message text.
 */
export function renderTemplate(templateName: string, text: string, variables: Record<string, unknown>): string {
  // the renderer walks the context recursively: bound it like every other walk of user JSON
  assertJsonDepth(variables, `The variables of device template "${templateName}"`);
  try {
    return strict.renderString(text, variables);
  } catch (err) {
    if (!isTemplateError(err)) throw err;
    if (rendersLeniently(text, variables)) {
      const names = printedNames(text).filter((n) => !(n in variables));
      throw new AppError(
        'DEVICE_TEMPLATE_RENDER_FAILED',
        `Device template "${templateName}" needs ${names.length === 0 ? 'a variable that was not given' : names.map((n) => `"${n}"`).join(', ')}: give ${names.length === 1 ? 'it' : 'them'} in variables`,
        { cause: err, details: { missing: names } },
      );
    }
    throw new AppError('DEVICE_TEMPLATE_RENDER_FAILED', `Device template "${templateName}" cannot be rendered: ${err.message.replace(/\s+/g, ' ').trim()}`, { cause: err });
  }
}

/**
 * Top-level names the template prints (`{{ name }}`, `{{ name.attr | upper }}`), minus names the
 * template binds itself (`for`, `set`, `macro`) and expressions that have a `default`.
 */
export function printedNames(text: string): string[] {
  const bound = new Set<string>(['loop', 'true', 'false', 'none', 'True', 'False', 'None', 'range', 'cycler', 'joiner', 'caller']);
  for (const m of text.matchAll(/\{%-?\s*for\s+([\w\s,]+?)\s+in\b/g)) for (const n of (m[1] ?? '').split(',')) bound.add(n.trim());
  for (const m of text.matchAll(/\{%-?\s*set\s+([A-Za-z_]\w*)/g)) bound.add(m[1] ?? '');
  for (const m of text.matchAll(/\{%-?\s*macro\s+\w+\(([^)]*)\)/g)) for (const n of (m[1] ?? '').split(',')) bound.add((n.split('=')[0] ?? '').trim());
  const names: string[] = [];
  for (const m of text.matchAll(/\{\{-?\s*([\s\S]*?)\s*-?\}\}/g)) {
    const expr = m[1] ?? '';
    if (/\|\s*(?:default|d)\b/.test(expr)) continue;
    const name = /^([A-Za-z_]\w*)/.exec(expr)?.[1];
    if (name !== undefined && !bound.has(name) && !names.includes(name)) names.push(name);
  }
  return names;
}
