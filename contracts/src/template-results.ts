import { isRecord } from './internal/records';

/**
 * A command template run read device by device: what a person is shown of a MOP check (the review
 * task's view, the console, `nap devices check`). A device passes under the template's passRule
 * (`all_pass_flag`): every one of its commands must pass, or one is enough when it is false. In a
 * run over several devices each is judged alone: one may pass while the run fails. Pure: no
 * imports, so that the console and the CLI may carry it. Job data of every age is read member by
 * member, never cast.
 */

/** A rule a command's output did not pass; `eval` and `severity` as MOP defaults them. */
export interface FailedRule {
  rule: string;
  eval: string;
  severity: string;
  /** Why it could not be evaluated (a variable without a value, a bad or slow pattern). */
  message?: string;
}

/** One command of the template as sent to one device. */
export interface CommandOutcome {
  /** As sent (variables filled in), else as the template writes it. */
  command: string;
  result: boolean;
  /** Not run: a variable had no value (present only then, as the review view has always answered it). */
  skipped?: boolean;
  /** Why it was skipped or failed (a device out of reach). */
  message?: string;
  failedRules: FailedRule[];
  /** The device's output. */
  response: string;
}

export interface DeviceOutcome {
  device: string;
  passed: boolean;
  commands: CommandOutcome[];
}

/** A run: the template's name, the whole run's verdict, and each device in the order first met. */
export interface TemplateOutcome {
  name?: string;
  result?: boolean;
  devices: DeviceOutcome[];
}

const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value));

/** A rule as shown; the defaults of MOP where a rule leaves `eval` or `severity` out. */
export function failedRuleOf(rule: Record<string, unknown>): FailedRule {
  return {
    rule: text(rule.rule),
    eval: text(rule.eval) || 'contains',
    severity: text(rule.severity) || 'error',
    ...(typeof rule.message === 'string' ? { message: rule.message } : {}),
  };
}

/** The answer of a command template run (`commands_results`) by device; undefined for any other value. */
export function templateOutcome(answer: unknown): TemplateOutcome | undefined {
  if (!isRecord(answer) || !Array.isArray(answer.commands_results)) return undefined;
  const entries = answer.commands_results.filter(isRecord);
  const allMustPass = answer.all_pass_flag !== false;
  const devices = [...new Set(entries.map((e) => text(e.device)))].map((device): DeviceOutcome => {
    const commands = entries
      .filter((e) => text(e.device) === device)
      .map((e): CommandOutcome => ({
        command: text(e.evaluated) || text(e.raw),
        result: e.result === true,
        ...(e.skipped === true ? { skipped: true } : {}),
        ...(typeof e.message === 'string' ? { message: e.message } : {}),
        failedRules: (Array.isArray(e.rules) ? e.rules : [])
          .filter(isRecord)
          .filter((r) => r.result !== true)
          .map(failedRuleOf),
        response: text(e.response),
      }));
    return { device, passed: allMustPass ? commands.every((c) => c.result) : commands.some((c) => c.result), commands };
  });
  return {
    ...(typeof answer.name === 'string' ? { name: answer.name } : {}),
    ...(typeof answer.result === 'boolean' ? { result: answer.result } : {}),
    devices,
  };
}

/**
 * A run's verdict in words, as people are told it: "passed on edge-1", "passed on both devices",
 * "failed on 1 of 3 devices". `result` is the run's own verdict (else: every device passed).
 */
export function outcomeVerdict(result: boolean | undefined, devices: readonly Pick<DeviceOutcome, 'device' | 'passed'>[]): string {
  const total = devices.length;
  const failed = devices.filter((d) => !d.passed).length;
  const passed = result ?? failed === 0;
  if (total === 0) return passed ? 'passed' : 'failed';
  if (total === 1) return `${passed ? 'passed' : 'failed'} on ${devices[0]?.device}`;
  if (passed) return total === 2 ? 'passed on both devices' : `passed on all ${total} devices`;
  return `failed on ${failed} of ${total} devices`;
}
