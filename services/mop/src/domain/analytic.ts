import type {
  AnalyticCommandResult,
  AnalyticRule,
  AnalyticRuleResult,
  AnalyticRunResult,
  AnalyticTemplate,
  CommandTemplate,
} from '@nap/contracts';
import type { RegexEngine, RegexJob, RegexOutcome } from './regex-engine';
import { combine, compareValues, counts, jsFlags, severityOf } from './rules';
import type { RuleOptions } from './rules';
import { substitute } from './variables';

/**
 * Analytic templates compare the outputs of command pairs taken before (pre) and after (post) a
 * change. Rule types: `regex` (preRegex captures a value from pre, postRegex from post, compared by
 * `evaluation`), `matches` (what the pattern finds in pre is what it finds in post; the whole
 * outputs are compared when there is no pattern) and `!matches` (they differ).
 */

/** What the analytic reads of one commands_results entry: the device, its output, and the command (raw or evaluated). */
export interface RunOutput {
  raw?: string;
  evaluated?: string;
  device: string;
  response: string;
}

/** The member of a run result the analytic reads. */
export interface RunOutputs {
  commands_results: RunOutput[];
}

function ownMember(value: object, key: string): unknown {
  const member: unknown = Object.getOwnPropertyDescriptor(value, key)?.value;
  return member;
}

function isRunOutput(value: unknown): value is RunOutput {
  if (typeof value !== 'object' || value === null) return false;
  const text = (key: string) => typeof ownMember(value, key) === 'string';
  const textOrAbsent = (key: string) => ownMember(value, key) === undefined || text(key);
  return text('device') && text('response') && textOrAbsent('raw') && textOrAbsent('evaluated');
}

/**
 * True when `value` is a RunCommandTemplate result as the analytic reads it: a commands_results
 * array whose entries name their device and output (and their command, raw or evaluated, as text).
 */
export function isRunOutputs(value: unknown): value is RunOutputs {
  if (typeof value !== 'object' || value === null) return false;
  const results = ownMember(value, 'commands_results');
  return Array.isArray(results) && results.every(isRunOutput);
}

function describe(outcome: RegexOutcome | undefined, pattern: string, options: RuleOptions): string | undefined {
  if (outcome === undefined) return `the pattern /${pattern}/ was not evaluated`;
  if (outcome.ok) return undefined;
  if (outcome.timedOut === true)
    return options.describeTimeout?.(outcome.error) ?? `the pattern /${pattern}/ ran too long: ${outcome.error}`;
  return `invalid regular expression /${pattern}/: ${outcome.error}`;
}

interface PlannedAnalyticRule {
  jobs: RegexJob[];
  finish(outcomes: readonly RegexOutcome[]): { result: boolean; preValue?: unknown; postValue?: unknown; message?: string };
}

function planAnalyticRule(
  rule: AnalyticRule,
  pre: string,
  post: string,
  variables: Readonly<Record<string, unknown>>,
  options: RuleOptions,
): PlannedAnalyticRule {
  const type = typeof rule.type === 'string' ? rule.type : 'regex';
  const sub = (text: unknown) => substitute(typeof text === 'string' ? text : '', variables);
  const parts = [sub(rule.preRegex), sub(rule.postRegex), sub(rule.rule)];
  const missing = [...new Set(parts.flatMap((p) => p.missing))];
  if (missing.length > 0) {
    return {
      jobs: [],
      finish: () => ({ result: false, message: `Variables ${missing.map((n) => `"${n}"`).join(', ')} of the rule have no value` }),
    };
  }
  const [preRegex, postRegexRaw, pattern] = parts.map((p) => p.text) as [string, string, string];
  const flags = jsFlags(rule.flags);
  if (type === 'regex') {
    const postRegex = postRegexRaw === '' ? preRegex : postRegexRaw;
    if (preRegex === '') return { jobs: [], finish: () => ({ result: false, message: 'a regex rule needs preRegex' }) };
    return {
      jobs: [
        { pattern: preRegex, flags, input: 0, mode: 'capture' },
        { pattern: postRegex, flags, input: 1, mode: 'capture' },
      ],
      finish(outcomes) {
        const failure = describe(outcomes[0], preRegex, options) ?? describe(outcomes[1], postRegex, options);
        if (failure !== undefined) return { result: false, message: failure };
        const preValue = (outcomes[0] as { value: unknown }).value;
        const postValue = (outcomes[1] as { value: unknown }).value;
        if (preValue === null)
          return { result: false, preValue, postValue, message: `preRegex /${preRegex}/ found nothing in the pre output` };
        if (postValue === null)
          return { result: false, preValue, postValue, message: `postRegex /${postRegex}/ found nothing in the post output` };
        const verdict = compareValues(
          preValue,
          postValue,
          typeof rule.evaluation === 'string' && rule.evaluation !== '' ? rule.evaluation : '=',
          rule.percentage,
        );
        return { result: verdict.result, preValue, postValue, ...(verdict.message !== undefined ? { message: verdict.message } : {}) };
      },
    };
  }
  if (type === 'matches' || type === '!matches') {
    const negate = type === '!matches';
    const source = pattern !== '' ? pattern : preRegex;
    if (source === '') {
      const same = rule.flags?.case === true ? pre.toLowerCase() === post.toLowerCase() : pre === post;
      return { jobs: [], finish: () => ({ result: negate ? !same : same }) };
    }
    return {
      jobs: [
        { pattern: source, flags, input: 0, mode: 'all' },
        { pattern: source, flags, input: 1, mode: 'all' },
      ],
      finish(outcomes) {
        const failure = describe(outcomes[0], source, options) ?? describe(outcomes[1], source, options);
        if (failure !== undefined) return { result: false, message: failure };
        const preValue = (outcomes[0] as { value: string[] }).value;
        const postValue = (outcomes[1] as { value: string[] }).value;
        const same = preValue.length === postValue.length && preValue.every((v, i) => v === postValue[i]);
        return { result: negate ? !same : same, preValue, postValue };
      },
    };
  }
  return { jobs: [], finish: () => ({ result: false, message: `unknown analytic rule type "${type}" (use regex, matches or !matches)` }) };
}

/** Evaluates the rules of one pre/post pair. */
export async function evaluateAnalyticRules(
  input: {
    pre: string;
    post: string;
    rules: readonly AnalyticRule[];
    variables: Readonly<Record<string, unknown>>;
    passRule?: boolean | null;
    ignoreWarnings?: boolean | null;
  },
  engine: RegexEngine,
  options: RuleOptions = {},
): Promise<{ rules: AnalyticRuleResult[]; result: boolean }> {
  const plans = input.rules.map((rule) => ({ rule, planned: planAnalyticRule(rule, input.pre, input.post, input.variables, options) }));
  const jobs: RegexJob[] = [];
  const offsets = plans.map((p) => {
    const at = jobs.length;
    jobs.push(...p.planned.jobs);
    return at;
  });
  const outcomes = jobs.length > 0 ? await engine.run([input.pre, input.post], jobs, options.deadline) : [];
  const rules = plans.map((p, i): AnalyticRuleResult => {
    const verdict = p.planned.finish(outcomes.slice(offsets[i], (offsets[i] as number) + p.planned.jobs.length));
    const out: AnalyticRuleResult = {
      type: typeof p.rule.type === 'string' ? p.rule.type : 'regex',
      severity: severityOf(p.rule.severity),
      ...verdict,
    };
    for (const member of ['preRegex', 'postRegex', 'evaluation', 'rule'] as const) {
      const v = p.rule[member];
      if (typeof v === 'string') out[member] = v;
    }
    return out;
  });
  return {
    rules,
    result: combine(
      rules.map((r) => counts(r, input.ignoreWarnings === true)),
      input.passRule,
    ),
  };
}

/** One side of an analytic template as a command template: its pre (or post) commands, in order, without rules. */
export function sideTemplate(template: AnalyticTemplate, side: 'pre' | 'post'): CommandTemplate {
  const member = side === 'pre' ? 'preRawCommand' : 'postRawCommand';
  return {
    name: `${template.name} (${side})`,
    commands: (template.prepostCommands ?? []).map((pair) => {
      const command = pair[member];
      return { command: typeof command === 'string' ? command : '', rules: [] };
    }),
  };
}

function sameCommand(entry: RunOutputs['commands_results'][number], raw: string, evaluated: string): boolean {
  return entry.raw === raw || entry.evaluated === evaluated || entry.evaluated === raw;
}

/** `entries` grouped by their device, in their order. */
function byDevice<T extends { device: string }>(entries: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const entry of entries) {
    const list = out.get(entry.device);
    if (list === undefined) out.set(entry.device, [entry]);
    else list.push(entry);
  }
  return out;
}

/**
 * Runs an analytic template over two run results: for every command pair and every device found in
 * pre or post, the n-th pre output of the pre command is compared with the n-th post output of the
 * post command on the same device.
 */
export async function runAnalyticTemplate(
  template: AnalyticTemplate,
  pre: RunOutputs,
  post: RunOutputs,
  variables: Readonly<Record<string, unknown>>,
  engine: RegexEngine,
  options: RuleOptions = {},
): Promise<AnalyticRunResult> {
  const devices = [...new Set([...pre.commands_results, ...post.commands_results].map((r) => r.device))];
  // by device once: pre and post name thousands of devices, each looked up for every command pair
  const preOf = byDevice(pre.commands_results);
  const postOf = byDevice(post.commands_results);
  const ignoreWarnings = template.ignoreWarnings === true;
  const results: AnalyticCommandResult[] = [];
  for (const device of devices) {
    for (const pair of template.prepostCommands ?? []) {
      const preRaw = typeof pair.preRawCommand === 'string' ? pair.preRawCommand : '';
      const postRaw = typeof pair.postRawCommand === 'string' ? pair.postRawCommand : '';
      const preEvaluated = substitute(preRaw, variables).text;
      const postEvaluated = substitute(postRaw, variables).text;
      const pres = (preOf.get(device) ?? []).filter((r) => sameCommand(r, preRaw, preEvaluated));
      const posts = (postOf.get(device) ?? []).filter((r) => sameCommand(r, postRaw, postEvaluated));
      const allPass = pair.passRule !== false;
      const count = Math.max(pres.length, posts.length, 1);
      for (let i = 0; i < count; i++) {
        const a = pres[i];
        const b = posts[i];
        const base = {
          preRawCommand: preRaw,
          postRawCommand: postRaw,
          preEvaluated: a?.evaluated ?? preEvaluated,
          postEvaluated: b?.evaluated ?? postEvaluated,
          device,
          preResponse: a?.response ?? '',
          postResponse: b?.response ?? '',
          all_pass_flag: allPass,
        };
        if (a === undefined || b === undefined) {
          const which = a === undefined ? `pre has no output of "${preEvaluated}"` : `post has no output of "${postEvaluated}"`;
          const message = `Not compared on device "${device}": ${which}`;
          results.push({
            ...base,
            result: false,
            message,
            rules: (pair.rules ?? []).map((r) => ({
              type: typeof r.type === 'string' ? r.type : 'regex',
              severity: severityOf(r.severity),
              result: false,
              message,
            })),
          });
          continue;
        }
        const evaluation = await evaluateAnalyticRules(
          { pre: a.response, post: b.response, rules: pair.rules ?? [], variables, passRule: pair.passRule, ignoreWarnings },
          engine,
          options,
        );
        results.push({ ...base, result: evaluation.result, rules: evaluation.rules });
      }
    }
  }
  const resultsOf = byDevice(results);
  const perDevice = devices.map((device) =>
    combine(
      (resultsOf.get(device) ?? []).map((r) => r.result),
      template.passRule,
    ),
  );
  return { name: template.name, all_pass_flag: template.passRule !== false, result: perDevice.every(Boolean), commands_results: results };
}
