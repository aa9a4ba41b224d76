import type { CommandResult, CommandTemplate, RuleResult, TemplateCommand, TemplateRunResult } from '@nap/contracts';
import type { RegexEngine } from './regex-engine';
import { combine, evaluateRules, severityOf } from './rules';
import type { RuleOptions } from './rules';
import { expandCommand } from './variables';

/** Sends one command to one inventory device and answers its raw output; throws when the device fails. */
export type CommandRunner = (device: string, command: string) => Promise<string>;

/** What a template run needs besides the template. */
export interface RunContext {
  engine: RegexEngine;
  runCommand: CommandRunner;
  /** Devices worked on at once; default 25. */
  concurrency?: number;
  ruleOptions?: RuleOptions;
}

/** Runs `fn` over `items` with at most `limit` at once; results in the order of `items`. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
  return results;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function unevaluated(command: TemplateCommand, why: string): RuleResult[] {
  return (command.rules ?? []).map((rule) => ({
    rule: typeof rule.rule === 'string' ? rule.rule : '',
    eval: typeof rule.eval === 'string' ? rule.eval : 'contains',
    severity: severityOf(rule.severity),
    result: false,
    message: why,
  }));
}

/** Runs one command of a template on one device: one result per expansion of its variables. */
export async function runTemplateCommand(
  command: TemplateCommand,
  device: string,
  variables: Readonly<Record<string, unknown>>,
  options: { ignoreWarnings: boolean },
  ctx: RunContext,
): Promise<CommandResult[]> {
  const raw = typeof command.command === 'string' ? command.command : '';
  const allPass = command.passRule !== false;
  const expansion = expandCommand(raw, variables);
  if (expansion.kind === 'skip') {
    return [
      {
        raw,
        evaluated: raw,
        device,
        response: '',
        result: false,
        all_pass_flag: allPass,
        parameters: expansion.parameters,
        rules: unevaluated(command, 'Not evaluated: the command was skipped'),
        skipped: true,
        message: expansion.message,
      },
    ];
  }
  const results: CommandResult[] = [];
  for (const { evaluated, parameters } of expansion.expansions) {
    let response: string;
    try {
      response = await ctx.runCommand(device, evaluated);
    } catch (err) {
      const message = `The command failed on device "${device}": ${errorMessage(err)}`;
      results.push({
        raw,
        evaluated,
        device,
        response: '',
        result: false,
        all_pass_flag: allPass,
        parameters,
        rules: unevaluated(command, `Not evaluated: ${message}`),
        message,
      });
      continue;
    }
    const evaluation = await evaluateRules(
      {
        response,
        rules: command.rules ?? [],
        variables: { ...variables, ...parameters },
        passRule: command.passRule,
        ignoreWarnings: options.ignoreWarnings,
      },
      ctx.engine,
      ctx.ruleOptions,
    );
    results.push({
      raw,
      evaluated,
      device,
      response,
      result: evaluation.result,
      all_pass_flag: allPass,
      parameters,
      rules: evaluation.rules,
    });
  }
  return results;
}

/**
 * Runs a command template (or the commands at `commandIndexes`) on devices: devices in parallel
 * (at most `concurrency`), the commands of one device in order. One commands_results entry per
 * command per device (per expansion), grouped by device in the order given. A device passes when its
 * commands combine to a pass by the template's passRule; the run passes when every device does.
 */
export async function runCommandTemplate(
  template: CommandTemplate,
  devices: readonly string[],
  variables: Readonly<Record<string, unknown>>,
  ctx: RunContext,
  commandIndexes?: readonly number[],
): Promise<TemplateRunResult> {
  const commands = template.commands ?? [];
  const selected = commandIndexes === undefined ? commands : commandIndexes.map((i) => commands[i] as TemplateCommand);
  const ignoreWarnings = template.ignoreWarnings === true;
  const perDevice = await mapLimit([...new Set(devices)], ctx.concurrency ?? 25, async (device) => {
    const results: CommandResult[] = [];
    for (const command of selected) results.push(...(await runTemplateCommand(command, device, variables, { ignoreWarnings }, ctx)));
    return {
      device,
      results,
      pass: combine(
        results.map((r) => r.result),
        template.passRule,
      ),
    };
  });
  return {
    name: template.name,
    all_pass_flag: template.passRule !== false,
    result: perDevice.every((d) => d.pass),
    commands_results: perDevice.flatMap((d) => d.results),
  };
}
