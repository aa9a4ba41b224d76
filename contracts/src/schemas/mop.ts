import type { JsonSchema } from '../catalog/types';
import { arr, bool, closed, embed, epochMs, int, name, nullable, num, obj, str } from './common';

/** Flags of a command template rule. */
export interface RuleFlags {
  /** Case-insensitive matching. */
  case?: boolean;
  global?: boolean;
  multiline?: boolean;
  [member: string]: unknown;
}

/** A rule of a command of a command template. */
export interface CommandRule {
  rule?: string;
  /** `contains`, `!contains`, `contains1`, `RegEx`, `!RegEx` or `#comparison`. */
  eval?: string;
  /** `error` (default), `warning` or `info`. */
  severity?: string;
  flags?: RuleFlags | null;
  /** Bottom operand of `#comparison`. */
  ruleB?: string;
  /** Operator of `#comparison`: `=`, `!=`, `<`, `>`, `<=`, `>=` or `%`. */
  evaluator?: string;
  /** Threshold of the `%` evaluator, in percent. */
  percentage?: number | string;
  raw?: string;
  result?: boolean;
  [member: string]: unknown;
}

/** A command of a command template. */
export interface TemplateCommand {
  command?: string;
  /** true: every rule must pass (AND); false: one rule must pass (OR). */
  passRule?: boolean;
  rules?: CommandRule[];
  [member: string]: unknown;
}

/** Command template (mopTemplateDoc). */
export interface CommandTemplate {
  name: string;
  _id?: string;
  os?: string;
  /** true: every command must pass (AND); false: one command must pass (OR). */
  passRule?: boolean;
  /** Count warning and info failures as passes. */
  ignoreWarnings?: boolean | null;
  commands?: TemplateCommand[];
  /** Epoch milliseconds. */
  created?: number;
  /** Epoch milliseconds. */
  lastUpdated?: number;
  createdBy?: string | null;
  lastUpdatedBy?: string | null;
  [member: string]: unknown;
}

/** A rule of a pre/post command pair of an analytic template. */
export interface AnalyticRule {
  /** `regex`, `matches` or `!matches`. */
  type?: string;
  preRegex?: string;
  postRegex?: string;
  /** Operator of `regex` rules: `=`, `!=`, `<`, `>`, `<=`, `>=`. */
  evaluation?: string;
  /** Pattern of `matches`/`!matches` (preRegex when absent). */
  rule?: string;
  severity?: string;
  flags?: RuleFlags | null;
  [member: string]: unknown;
}

/** A pre/post command pair of an analytic template. */
export interface PrePostCommand {
  preRawCommand?: string;
  postRawCommand?: string;
  passRule?: boolean;
  rules?: AnalyticRule[];
  preCommandResHTML?: string;
  postCommandResHTML?: string;
  [member: string]: unknown;
}

/** Analytic template (mopAnalyticTemplateDoc). */
export interface AnalyticTemplate {
  name: string;
  _id?: string;
  os?: string;
  passRule?: boolean;
  ignoreWarnings?: boolean | null;
  prepostCommands?: PrePostCommand[];
  created?: number;
  lastUpdated?: number;
  createdBy?: string | null;
  lastUpdatedBy?: string | null;
  [member: string]: unknown;
}

/** Body of `POST /mop/createAnalyticTemplate` (operation 14). */
export interface CreateAnalyticTemplateBody {
  template: AnalyticTemplate;
}

function flags(): JsonSchema {
  return nullable(obj({ case: bool({ description: 'case-insensitive' }), global: bool(), multiline: bool() }));
}

function severity(): JsonSchema {
  return str({ description: 'error (default), warning or info' });
}

function commandRule(): JsonSchema {
  return obj({
    rule: str(),
    eval: str({ description: 'contains, !contains, contains1, RegEx, !RegEx or #comparison' }),
    severity: severity(),
    flags: flags(),
    ruleB: str({ description: 'bottom operand of #comparison' }),
    evaluator: str({ description: 'operator of #comparison: =, !=, <, >, <=, >= or %' }),
    percentage: { type: ['number', 'string'], description: 'threshold of the % evaluator, in percent' },
    raw: str(),
    result: bool(),
  });
}

function userName(): JsonSchema {
  return nullable(str({ description: 'user name' }));
}

function commandTemplateProperties(): Record<string, JsonSchema> {
  return {
    name: name('template name'),
    _id: str(),
    os: str({ description: 'operating system kind' }),
    passRule: bool({ description: 'true: every command must pass; false: one command must pass' }),
    ignoreWarnings: nullable(bool({ description: 'count warning and info failures as passes' })),
    commands: arr(obj({ command: str(), passRule: bool({ description: 'true: every rule must pass; false: one rule must pass' }), rules: arr(commandRule()) })),
    created: epochMs(),
    lastUpdated: epochMs(),
    createdBy: userName(),
    lastUpdatedBy: userName(),
  };
}

/** Command template (mopTemplateDoc). */
export const commandTemplateSchema: JsonSchema = {
  $id: 'nap:schemas/command-template',
  ...obj(commandTemplateProperties(), ['name']),
};

function analyticRule(): JsonSchema {
  return obj({
    type: str({ description: 'regex, matches or !matches' }),
    preRegex: str(),
    postRegex: str(),
    evaluation: str({ description: 'operator of regex rules: =, !=, <, >, <=, >=' }),
    rule: str({ description: 'pattern of matches and !matches (preRegex when absent)' }),
    severity: severity(),
    flags: flags(),
  });
}

function analyticTemplateProperties(): Record<string, JsonSchema> {
  return {
    name: name('template name'),
    _id: str(),
    os: str({ description: 'operating system kind' }),
    passRule: bool({ description: 'overall result' }),
    ignoreWarnings: nullable(bool()),
    prepostCommands: arr(
      obj({
        preRawCommand: str(),
        postRawCommand: str(),
        passRule: bool(),
        rules: arr(analyticRule()),
        preCommandResHTML: str(),
        postCommandResHTML: str(),
      }),
    ),
    created: epochMs(),
    lastUpdated: epochMs(),
    createdBy: userName(),
    lastUpdatedBy: userName(),
  };
}

/** Analytic template (mopAnalyticTemplateDoc). */
export const analyticTemplateSchema: JsonSchema = {
  $id: 'nap:schemas/analytic-template',
  ...obj(analyticTemplateProperties(), ['name']),
};

/** Body of operation 14: only `template`, an analytic template with a name. */
export const createAnalyticTemplateBodySchema: JsonSchema = {
  $id: 'nap:schemas/create-analytic-template-body',
  ...closed({ template: embed(analyticTemplateSchema) }, ['template']),
};

/** One rule's outcome in a command result. */
export interface RuleResult {
  /** The rule text after variable substitution. */
  rule: string;
  eval: string;
  severity: string;
  result: boolean;
  /** Why the rule failed when it could not be evaluated (missing variable, bad or slow pattern). */
  message?: string;
  [member: string]: unknown;
}

/** One command run on one device, with its rules evaluated. */
export interface CommandResult {
  /** The command as the template writes it. */
  raw: string;
  /** The command sent to the device (variables substituted). */
  evaluated: string;
  device: string;
  /** Raw output of the device. */
  response: string;
  result: boolean;
  /** passRule of the command: true AND, false OR. */
  all_pass_flag: boolean;
  /** Values of the variables used by this command. */
  parameters: Record<string, unknown>;
  rules: RuleResult[];
  /** True when the command was not run because a variable had no value. */
  skipped?: boolean;
  /** Why the command was skipped or failed on the device. */
  message?: string;
  [member: string]: unknown;
}

/** The answer of a command template run. */
export interface TemplateRunResult {
  name: string;
  /** passRule of the template: true AND, false OR. */
  all_pass_flag: boolean;
  result: boolean;
  commands_results: CommandResult[];
  /** Id of the stored run (GET /mop/runs/:id). */
  runId?: string;
  [member: string]: unknown;
}

function ruleResult(): JsonSchema {
  return obj({ rule: str(), eval: str(), severity: str(), result: bool(), message: str() }, ['rule', 'eval', 'severity', 'result']);
}

function commandResult(): JsonSchema {
  return obj(
    {
      raw: str({ description: 'the command as the template writes it' }),
      evaluated: str({ description: 'the command sent to the device' }),
      device: str(),
      response: str({ description: 'raw output of the device' }),
      result: bool(),
      all_pass_flag: bool({ description: 'passRule of the command' }),
      parameters: { type: 'object', description: 'values of the variables the command used' },
      rules: arr(ruleResult()),
      skipped: bool({ description: 'not run: a variable had no value' }),
      message: str({ description: 'why the command was skipped or failed' }),
    },
    ['raw', 'evaluated', 'device', 'response', 'result', 'all_pass_flag', 'parameters', 'rules'],
  );
}

/** The answer of RunCommandTemplate and RunCommandTemplateSingleCommand. */
export const templateRunResultSchema: JsonSchema = {
  $id: 'nap:schemas/template-run-result',
  ...obj(
    {
      name: str({ description: 'template name' }),
      all_pass_flag: bool({ description: 'passRule of the template' }),
      result: bool({ description: 'overall result over every device' }),
      commands_results: arr(commandResult(), { description: 'one entry per command per device' }),
      runId: str({ description: 'id of the stored run (GET /mop/runs/:id)' }),
    },
    ['name', 'all_pass_flag', 'result', 'commands_results'],
  ),
};

/** One analytic rule's outcome. */
export interface AnalyticRuleResult {
  type: string;
  severity: string;
  result: boolean;
  preValue?: unknown;
  postValue?: unknown;
  message?: string;
  [member: string]: unknown;
}

/** One pre/post command pair compared on one device. */
export interface AnalyticCommandResult {
  preRawCommand: string;
  postRawCommand: string;
  device: string;
  preResponse: string;
  postResponse: string;
  result: boolean;
  all_pass_flag: boolean;
  rules: AnalyticRuleResult[];
  message?: string;
  [member: string]: unknown;
}

/** The answer of runAnalyticsTemplate and runAnalyticsTemplateDevices. */
export interface AnalyticRunResult {
  name: string;
  all_pass_flag: boolean;
  result: boolean;
  commands_results: AnalyticCommandResult[];
  runId?: string;
  [member: string]: unknown;
}

/** The answer of the analytic runs. */
export const analyticRunResultSchema: JsonSchema = {
  $id: 'nap:schemas/analytic-run-result',
  ...obj(
    {
      name: str({ description: 'analytic template name' }),
      all_pass_flag: bool(),
      result: bool(),
      commands_results: arr(
        obj(
          {
            preRawCommand: str(),
            postRawCommand: str(),
            device: str(),
            preResponse: str(),
            postResponse: str(),
            result: bool(),
            all_pass_flag: bool(),
            rules: arr(obj({ type: str(), severity: str(), result: bool(), preValue: {}, postValue: {}, message: str() }, ['type', 'severity', 'result'])),
            message: str(),
          },
          ['preRawCommand', 'postRawCommand', 'device', 'result', 'all_pass_flag', 'rules'],
        ),
      ),
      runId: str(),
    },
    ['name', 'all_pass_flag', 'result', 'commands_results'],
  ),
};

/** A stored template run (history of the command and analytic template runs; an addition). */
export interface TemplateRun {
  _id: string;
  template: string;
  kind: 'command' | 'analytic';
  devices: string[];
  /** Variables of the run; values of secret-looking names are masked. */
  variables: Record<string, unknown>;
  result: boolean;
  /** Epoch milliseconds. */
  started: number;
  /** Epoch milliseconds. */
  finished: number;
  createdBy: string;
  /** The run's answer (secret-looking variable values masked). */
  output: TemplateRunResult | AnalyticRunResult;
}

/** A stored template run. */
export const templateRunSchema: JsonSchema = {
  $id: 'nap:schemas/template-run',
  ...obj(
    {
      _id: str(),
      template: str({ description: 'template name' }),
      kind: { type: 'string', enum: ['command', 'analytic'] },
      devices: arr(str()),
      variables: { type: 'object', description: 'values of secret-looking names are masked' },
      result: bool(),
      started: epochMs(),
      finished: epochMs(),
      createdBy: str(),
      output: { type: 'object', description: 'the answer of the run' },
    },
    ['_id', 'template', 'kind', 'result', 'started', 'finished'],
  ),
};

/** A scheduled re-attempt of a workflow step (reattempt). */
export interface Reattempt {
  _id: string;
  jobId: string;
  attemptID: string;
  /** Number of this attempt, from 1. */
  attempt: number;
  /** Most attempts allowed. */
  attempts: number;
  minutes: number;
  /** Epoch milliseconds when the step may run again. */
  reattemptAt: number;
  status: 'waiting' | 'due';
}

/** Answer of reattempt. */
export const reattemptResultSchema: JsonSchema = {
  $id: 'nap:schemas/reattempt-result',
  ...obj(
    {
      response: str({ description: 'a sentence saying when the step runs again' }),
      jobId: str(),
      attemptID: str(),
      attempt: int({ minimum: 1 }),
      attempts: int({ minimum: 1 }),
      minutes: num(),
      reattemptAt: epochMs('epoch milliseconds of the next attempt'),
    },
    ['response', 'attempt', 'reattemptAt'],
  ),
};
