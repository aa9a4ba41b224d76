import type { CommandRule, RuleFlags, RuleResult } from '@nap/contracts';
import type { RegexEngine, RegexJob, RegexOutcome } from './regex-engine';
import { substitute } from './variables';

/**
 * Rule evaluation of command templates, as users of this kind of platform write rules:
 * `contains`, `!contains`, `contains1` (exactly one occurrence), `RegEx`, `!RegEx` and
 * `#comparison` (two operands, each a `/regex/` whose group 1 is the value, or a static value,
 * compared with `=`, `!=`, `<`, `>`, `<=`, `>=` or `%`). Flags: `case` (case-insensitive),
 * `multiline` (`^`/`$` per line), `global` (kept; a match anywhere already counts).
 */

export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The comparison operators of `#comparison` (and of analytic `regex` rules). */
export const COMPARATORS = ['=', '==', '!=', '<', '>', '<=', '>=', '%'] as const;

/** What the rule logic needs to know about the run. */
export interface RuleOptions {
  /** Message of a job that ran out of time, for example `the pattern ran longer than 1000 ms`. */
  describeTimeout?: (error: string) => string;
  /** Epoch ms after which the request no longer waits: patterns not started by then are not run. */
  deadline?: number;
}

/** A rule prepared for evaluation: regex jobs to run, then a function that reads their outcomes. */
export interface PlannedRule {
  jobs: RegexJob[];
  finish(outcomes: readonly RegexOutcome[]): RuleVerdict;
}

/** The verdict of one rule. */
export interface RuleVerdict {
  result: boolean;
  message?: string;
  /** Values a comparison compared. */
  compared?: [unknown, unknown];
}

/** JavaScript flags of a rule's flags. `global` is accepted and changes nothing: one match passes a rule. */
export function jsFlags(flags: RuleFlags | null | undefined, extra = ''): string {
  let out = '';
  if (flags?.case === true) out += 'i';
  if (flags?.multiline === true) out += 'm';
  for (const f of extra) if ('imsu'.includes(f) && !out.includes(f)) out += f;
  return out;
}

/** A severity, `error` when absent or unknown. */
export function severityOf(value: unknown): Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value) ? (value as Severity) : 'error';
}

function done(verdict: RuleVerdict): PlannedRule {
  return { jobs: [], finish: () => verdict };
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    count += 1;
    at = haystack.indexOf(needle, at + needle.length);
  }
  return count;
}

function outcomeFailure(outcome: RegexOutcome | undefined, pattern: string, options: RuleOptions): string | undefined {
  if (outcome === undefined) return `the pattern /${pattern}/ was not evaluated`;
  if (outcome.ok) return undefined;
  if (outcome.timedOut === true)
    return options.describeTimeout?.(outcome.error) ?? `the pattern /${pattern}/ ran too long: ${outcome.error}`;
  return `invalid regular expression /${pattern}/: ${outcome.error}`;
}

/** A `#comparison` operand: a regular expression written `/…/flags`, or a static value. */
export type Operand = { kind: 'regex'; pattern: string; flags: string } | { kind: 'value'; value: string };

const REGEX_LITERAL = /^\/(.*)\/([a-z]*)$/s;

export function parseOperand(text: string): Operand {
  const m = REGEX_LITERAL.exec(text.trim());
  if (m !== null && (m[1] as string).length > 0) return { kind: 'regex', pattern: m[1] as string, flags: m[2] as string };
  return { kind: 'value', value: text };
}

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') return undefined;
  const t = value.trim().replace(/,/g, '');
  return NUMBER.test(t) ? Number(t) : undefined;
}

/**
 * Compares `a` (top operand) with `b` (bottom operand). Numbers compare as numbers when both read as
 * numbers, otherwise `=` and `!=` compare text and the ordering operators fail. `%` passes when `b`
 * is at most `percentage` percent of `a` (used 80 of total 100 passes at 90 %).
 */
export function compareValues(a: unknown, b: unknown, operator: string, percentage?: unknown): RuleVerdict {
  const na = asNumber(a);
  const nb = asNumber(b);
  const both = na !== undefined && nb !== undefined;
  const compared: [unknown, unknown] = [both ? na : a, both ? nb : b];
  switch (operator) {
    case '=':
    case '==':
      return { result: both ? na === nb : String(a).trim() === String(b).trim(), compared };
    case '!=':
      return { result: both ? na !== nb : String(a).trim() !== String(b).trim(), compared };
    case '<':
    case '>':
    case '<=':
    case '>=': {
      if (!both) return { result: false, compared, message: `"${String(a)}" ${operator} "${String(b)}" needs two numbers` };
      const result = operator === '<' ? na < nb : operator === '>' ? na > nb : operator === '<=' ? na <= nb : na >= nb;
      return { result, compared };
    }
    case '%': {
      const p = asNumber(percentage);
      if (p === undefined)
        return { result: false, compared, message: `the % comparison needs a numeric percentage, got "${String(percentage)}"` };
      if (!both) return { result: false, compared, message: `the % comparison of "${String(a)}" and "${String(b)}" needs two numbers` };
      return { result: nb <= (na * p) / 100, compared };
    }
    default:
      return { result: false, compared, message: `unknown comparison operator "${operator}" (use =, !=, <, >, <=, >= or %)` };
  }
}

function planComparison(rule: CommandRule, top: string, bottom: string, options: RuleOptions): PlannedRule {
  const evaluator = typeof rule.evaluator === 'string' && rule.evaluator !== '' ? rule.evaluator : '=';
  if (!(COMPARATORS as readonly string[]).includes(evaluator))
    return done({ result: false, message: `unknown comparison operator "${evaluator}" (use =, !=, <, >, <=, >= or %)` });
  const operands = [parseOperand(top), parseOperand(bottom)] as const;
  const jobs: RegexJob[] = [];
  const jobOf: (number | undefined)[] = operands.map((op) => {
    if (op.kind !== 'regex') return undefined;
    jobs.push({ pattern: op.pattern, flags: jsFlags(rule.flags, op.flags), input: 0, mode: 'capture' });
    return jobs.length - 1;
  });
  return {
    jobs,
    finish(outcomes) {
      const values: unknown[] = [];
      for (const [i, op] of operands.entries()) {
        if (op.kind === 'value') {
          values.push(op.value);
          continue;
        }
        const outcome = outcomes[jobOf[i] as number];
        const failure = outcomeFailure(outcome, op.pattern, options);
        if (failure !== undefined) return { result: false, message: failure };
        const value = (outcome as { value: unknown }).value;
        if (value === null)
          return { result: false, message: `the ${i === 0 ? 'top' : 'bottom'} operand /${op.pattern}/ found nothing in the response` };
        values.push(value);
      }
      return compareValues(values[0], values[1], evaluator, rule.percentage);
    },
  };
}

/**
 * Plans one rule against a response (input 0 of the batch). Variables are substituted first; a
 * variable without a value fails the rule with a message naming it.
 */
export function planRule(
  rule: CommandRule,
  response: string,
  variables: Readonly<Record<string, unknown>>,
  options: RuleOptions = {},
): { text: string; planned: PlannedRule } {
  const raw = typeof rule.rule === 'string' ? rule.rule : '';
  const main = substitute(raw, variables);
  const second = typeof rule.ruleB === 'string' ? substitute(rule.ruleB, variables) : undefined;
  const missing = [...main.missing, ...(second?.missing ?? [])];
  const invalid = [...main.invalid, ...(second?.invalid ?? [])];
  if (missing.length > 0) {
    const names = [...new Set(missing)].map((n) => `"${n}"`).join(', ');
    return {
      text: main.text,
      planned: done({
        result: false,
        message: `${missing.length === 1 ? 'Variable' : 'Variables'} ${names} of the rule ${missing.length === 1 ? 'has' : 'have'} no value`,
      }),
    };
  }
  if (invalid.length > 0) {
    const names = [...new Set(invalid)].map((n) => `"${n}"`).join(', ');
    return {
      text: main.text,
      planned: done({
        result: false,
        message: `Variable ${names} of the rule must be a string, number or boolean here (a list is only expanded by the command)`,
      }),
    };
  }
  const text = main.text;
  const caseless = rule.flags?.case === true;
  const haystack = () => (caseless ? response.toLowerCase() : response);
  const needle = caseless ? text.toLowerCase() : text;
  const evalName = typeof rule.eval === 'string' ? rule.eval : 'contains';
  switch (evalName) {
    case 'contains':
      return { text, planned: done({ result: haystack().includes(needle) }) };
    case '!contains':
      return { text, planned: done({ result: !haystack().includes(needle) }) };
    case 'contains1':
      if (needle === '') return { text, planned: done({ result: false, message: 'contains1 needs a non-empty text to count' }) };
      return { text, planned: done({ result: countOccurrences(haystack(), needle) === 1 }) };
    case 'RegEx':
    case '!RegEx': {
      const negate = evalName === '!RegEx';
      return {
        text,
        planned: {
          jobs: [{ pattern: text, flags: jsFlags(rule.flags), input: 0, mode: 'test' }],
          finish(outcomes) {
            const failure = outcomeFailure(outcomes[0], text, options);
            if (failure !== undefined) return { result: false, message: failure };
            const matched = (outcomes[0] as { value: unknown }).value === true;
            return { result: negate ? !matched : matched };
          },
        },
      };
    }
    case '#comparison':
      return { text, planned: planComparison(rule, text, second?.text ?? '', options) };
    default:
      return {
        text,
        planned: done({
          result: false,
          message: `unknown rule "${evalName}" (use contains, !contains, contains1, RegEx, !RegEx or #comparison)`,
        }),
      };
  }
}

/** A rule failing at warning or info severity counts as a pass when warnings are ignored. */
export function counts(rule: { result: boolean; severity: string }, ignoreWarnings: boolean): boolean {
  return rule.result || (ignoreWarnings && (rule.severity === 'warning' || rule.severity === 'info'));
}

/** passRule true (or absent): every item must pass; false: one must. No items pass. */
export function combine(results: readonly boolean[], passRule: boolean | undefined | null): boolean {
  if (results.length === 0) return true;
  return passRule === false ? results.some(Boolean) : results.every(Boolean);
}

/** Outcome of {@link evaluateRules}. */
export interface RulesEvaluation {
  rules: RuleResult[];
  /** The command's result: its rules combined by passRule, warnings counted as passes when ignored. */
  result: boolean;
}

/**
 * Evaluates the rules of one command against its response: plans every rule, runs all their regex
 * jobs as one batch on `engine`, and combines the verdicts.
 */
export async function evaluateRules(
  input: {
    response: string;
    rules: readonly CommandRule[];
    variables: Readonly<Record<string, unknown>>;
    passRule?: boolean | null;
    ignoreWarnings?: boolean | null;
  },
  engine: RegexEngine,
  options: RuleOptions = {},
): Promise<RulesEvaluation> {
  const plans = input.rules.map((rule) => ({ rule, ...planRule(rule, input.response, input.variables, options) }));
  const jobs: RegexJob[] = [];
  const offsets = plans.map((p) => {
    const at = jobs.length;
    jobs.push(...p.planned.jobs);
    return at;
  });
  const outcomes = jobs.length > 0 ? await engine.run([input.response], jobs, options.deadline) : [];
  const rules = plans.map((p, i): RuleResult => {
    const verdict = p.planned.finish(outcomes.slice(offsets[i], (offsets[i] as number) + p.planned.jobs.length));
    const out: RuleResult = {
      rule: p.text,
      eval: typeof p.rule.eval === 'string' ? p.rule.eval : 'contains',
      severity: severityOf(p.rule.severity),
      result: verdict.result,
    };
    if (verdict.message !== undefined) out.message = verdict.message;
    if (p.rule.eval === '#comparison') {
      if (typeof p.rule.ruleB === 'string') out.ruleB = substitute(p.rule.ruleB, input.variables).text;
      out.evaluator = typeof p.rule.evaluator === 'string' ? p.rule.evaluator : '=';
      if (p.rule.percentage !== undefined) out.percentage = p.rule.percentage;
      if (verdict.compared !== undefined) out.compared = verdict.compared;
    }
    if (p.rule.flags) out.flags = p.rule.flags;
    return out;
  });
  const ignore = input.ignoreWarnings === true;
  return {
    rules,
    result: combine(
      rules.map((r) => counts(r, ignore)),
      input.passRule,
    ),
  };
}
