import { variablesIn } from '@nap/contracts/dist/template-variables';
import type { CommandTemplate } from './nap';

/** The `<!name!>` variables a command template uses in its commands and rules, each once, in order of first use. */
export function templateVariables(template: Pick<CommandTemplate, 'commands'>): string[] {
  const texts = (template.commands ?? []).flatMap((c) => [c.command, ...(c.rules ?? []).map((r) => r.rule)]);
  return variablesIn(texts.filter((t): t is string => typeof t === 'string').join('\n'));
}

/**
 * A variable's value as a person types it: a JSON list, number or boolean as that value (a list
 * runs the command once per element), anything else as the text typed. Blank: no value.
 */
export function variableValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (/^(\[.*\]|-?\d+(\.\d+)?|true|false)$/s.test(trimmed)) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
