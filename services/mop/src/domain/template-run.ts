import type { CommandResult, CommandTemplate, RuleResult, TemplateCommand, TemplateRunResult } from '@nap/contracts';
import type { RegexEngine } from './regex-engine';
import { combine, evaluateRules, severityOf } from './rules';
import type { RuleOptions } from './rules';
import { expandCommand } from './variables';
import type { CommandExpansion } from './variables';

/**
 * A command template run in two halves around the devices: {@link planTemplateRun} says what every
 * device is sent, {@link templateRunResult} evaluates the rules on what they answered. Sending is
 * not done here (the device gateway client does it), so both halves take values and answer values.
 */

/** One command of a template as every device of a run gets it: its variables expanded, or why it is skipped. */
export interface PlannedCommand {
  command: TemplateCommand;
  raw: string;
  expansion: CommandExpansion;
}

/** A command template run before anything is sent. */
export interface TemplateRunPlan {
  template: CommandTemplate;
  /** The devices, each once, in the order given. */
  devices: string[];
  variables: Readonly<Record<string, unknown>>;
  commands: PlannedCommand[];
  /** What every device is sent, in order: one text per expansion of each command that is not skipped. */
  sends: string[];
}

/** What a device answered to one command sent: its output, or why the command failed. */
export type CommandAnswer = { ok: true; response: string } | { ok: false; error: string };

/** What one device answered to the `sends` of a plan, in order. */
export interface DeviceAnswers {
  device: string;
  answers: CommandAnswer[];
}

/** Plans a run of a command template (or of the commands at `commandIndexes`) on devices with `variables`. */
export function planTemplateRun(
  template: CommandTemplate,
  devices: readonly string[],
  variables: Readonly<Record<string, unknown>>,
  commandIndexes?: readonly number[],
): TemplateRunPlan {
  const all = template.commands ?? [];
  const selected = commandIndexes === undefined ? all : commandIndexes.map((i) => all[i] as TemplateCommand);
  const commands = selected.map((command): PlannedCommand => {
    const raw = typeof command.command === 'string' ? command.command : '';
    return { command, raw, expansion: expandCommand(raw, variables) };
  });
  const sends = commands.flatMap(({ expansion }) => (expansion.kind === 'run' ? expansion.expansions.map((e) => e.evaluated) : []));
  return { template, devices: [...new Set(devices)], variables, commands, sends };
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

/** The results of one device: one per command per expansion of its variables, in the order of the plan. */
async function deviceResults(
  plan: TemplateRunPlan,
  { device, answers }: DeviceAnswers,
  engine: RegexEngine,
  ruleOptions: RuleOptions | undefined,
): Promise<CommandResult[]> {
  const ignoreWarnings = plan.template.ignoreWarnings === true;
  const results: CommandResult[] = [];
  let next = 0;
  for (const { command, raw, expansion } of plan.commands) {
    const allPass = command.passRule !== false;
    if (expansion.kind === 'skip') {
      results.push({
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
      });
      continue;
    }
    for (const { evaluated, parameters } of expansion.expansions) {
      const answer = answers[next];
      next += 1;
      if (answer === undefined || !answer.ok) {
        const message = `The command failed on device "${device}": ${answer === undefined ? 'no answer was received' : answer.error}`;
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
          response: answer.response,
          rules: command.rules ?? [],
          variables: { ...plan.variables, ...parameters },
          passRule: command.passRule,
          ignoreWarnings,
        },
        engine,
        ruleOptions,
      );
      results.push({
        raw,
        evaluated,
        device,
        response: answer.response,
        result: evaluation.result,
        all_pass_flag: allPass,
        parameters,
        rules: evaluation.rules,
      });
    }
  }
  return results;
}

/**
 * The result of a run from what the devices answered: one commands_results entry per command per
 * device (per expansion), grouped by device in the order answered. A device passes when its commands
 * combine to a pass by the template's passRule; the run passes when every device does.
 */
export async function templateRunResult(
  plan: TemplateRunPlan,
  answered: readonly DeviceAnswers[],
  engine: RegexEngine,
  ruleOptions?: RuleOptions,
): Promise<TemplateRunResult> {
  const { template } = plan;
  const perDevice = await Promise.all(
    answered.map(async (device) => {
      const results = await deviceResults(plan, device, engine, ruleOptions);
      const pass = combine(
        results.map((r) => r.result),
        template.passRule,
      );
      return { results, pass };
    }),
  );
  return {
    name: template.name,
    all_pass_flag: template.passRule !== false,
    result: perDevice.every((d) => d.pass),
    commands_results: perDevice.flatMap((d) => d.results),
  };
}
