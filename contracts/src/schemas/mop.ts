import type { Static } from '@sinclair/typebox';
import {
  Type,
  anyObject,
  anyValue,
  arr,
  bool,
  closed,
  embed,
  epochMs,
  int,
  name,
  nullable,
  num,
  obj,
  oneOf,
  open,
  printableName,
  str,
  withId,
} from './common';

/*
 * Templates are stored as given and results carry members the schemas do not name (the evaluated
 * commands of an analytic pair, the operands of a rule), so their schemas are `open`: the members
 * beyond the named ones are part of the type, as `unknown`.
 */

function ruleFlags() {
  return open({ case: bool({ description: 'case-insensitive' }), global: bool(), multiline: bool() });
}
/** Flags of a command template rule: `case` (case-insensitive), `global`, `multiline`. */
export type RuleFlags = Static<ReturnType<typeof ruleFlags>>;

function flags() {
  return nullable(ruleFlags());
}

function severity() {
  return str({ description: 'error (default), warning or info' });
}

function commandRule() {
  return open({
    rule: str(),
    eval: str({ description: 'contains, !contains, contains1, RegEx, !RegEx or #comparison' }),
    severity: severity(),
    flags: flags(),
    ruleB: str({ description: 'bottom operand of #comparison' }),
    evaluator: str({ description: 'operator of #comparison: =, !=, <, >, <=, >= or %' }),
    percentage: Type.Unsafe<number | string>({ type: ['number', 'string'], description: 'threshold of the % evaluator, in percent' }),
    raw: str(),
    result: bool(),
  });
}
/** A rule of a command of a command template. */
export type CommandRule = Static<ReturnType<typeof commandRule>>;

function templateCommand() {
  return open({
    command: str(),
    passRule: bool({ description: 'true: every rule must pass; false: one rule must pass' }),
    rules: arr(commandRule()),
  });
}
/** A command of a command template. */
export type TemplateCommand = Static<ReturnType<typeof templateCommand>>;

function userName() {
  return nullable(str({ description: 'user name' }));
}

function commandTemplateProperties() {
  return {
    name: name('template name'),
    _id: str(),
    os: str({ description: 'operating system kind' }),
    passRule: bool({ description: 'true: every command must pass; false: one command must pass' }),
    ignoreWarnings: nullable(bool({ description: 'count warning and info failures as passes' })),
    commands: arr(templateCommand()),
    created: epochMs(),
    lastUpdated: epochMs(),
    createdBy: userName(),
    lastUpdatedBy: userName(),
  };
}

/** Command template (mopTemplateDoc). */
export const commandTemplateSchema = withId('nap:schemas/command-template', open(commandTemplateProperties(), ['name']));
/** Command template (mopTemplateDoc); members beyond the named ones are stored as given. */
export type CommandTemplate = Static<typeof commandTemplateSchema>;
/** A command template as a request gives it (create, update, import): its name printable ({@link printableName}). */
export const commandTemplateInputSchema = withId(
  'nap:schemas/command-template-input',
  open({ ...commandTemplateProperties(), name: printableName('template name') }, ['name']),
);

function analyticRule() {
  return open({
    type: str({ description: 'regex, matches or !matches' }),
    preRegex: str(),
    postRegex: str(),
    evaluation: str({ description: 'operator of regex rules: =, !=, <, >, <=, >=' }),
    rule: str({ description: 'pattern of matches and !matches (preRegex when absent)' }),
    severity: severity(),
    flags: flags(),
  });
}
/** A rule of a pre/post command pair of an analytic template. */
export type AnalyticRule = Static<ReturnType<typeof analyticRule>>;

function prePostCommand() {
  return open({
    preRawCommand: str(),
    postRawCommand: str(),
    passRule: bool(),
    rules: arr(analyticRule()),
    preCommandResHTML: str(),
    postCommandResHTML: str(),
  });
}
/** A pre/post command pair of an analytic template. */
export type PrePostCommand = Static<ReturnType<typeof prePostCommand>>;

function analyticTemplateProperties() {
  return {
    name: name('template name'),
    _id: str(),
    os: str({ description: 'operating system kind' }),
    passRule: bool({ description: 'overall result' }),
    ignoreWarnings: nullable(bool()),
    prepostCommands: arr(prePostCommand()),
    created: epochMs(),
    lastUpdated: epochMs(),
    createdBy: userName(),
    lastUpdatedBy: userName(),
  };
}

/** Analytic template (mopAnalyticTemplateDoc). */
export const analyticTemplateSchema = withId('nap:schemas/analytic-template', open(analyticTemplateProperties(), ['name']));
/** An analytic template as a request gives it (create, update, import): its name printable ({@link printableName}). */
export const analyticTemplateInputSchema = withId(
  'nap:schemas/analytic-template-input',
  open({ ...analyticTemplateProperties(), name: printableName('template name') }, ['name']),
);
/** Analytic template (mopAnalyticTemplateDoc); members beyond the named ones are stored as given. */
export type AnalyticTemplate = Static<typeof analyticTemplateSchema>;

/** Body of `POST /mop/createAnalyticTemplate`: only `template`, an analytic template with a name. */
export const createAnalyticTemplateBodySchema = withId(
  'nap:schemas/create-analytic-template-body',
  closed({ template: embed(analyticTemplateInputSchema) }, ['template']),
);
/** Body of `POST /mop/createAnalyticTemplate`. */
export type CreateAnalyticTemplateBody = Static<typeof createAnalyticTemplateBodySchema>;

function ruleResult() {
  return open(
    {
      rule: str({ description: 'the rule text after variable substitution' }),
      eval: str(),
      severity: str(),
      result: bool(),
      message: str({ description: 'why the rule failed when it could not be evaluated (missing variable, bad or slow pattern)' }),
    },
    ['rule', 'eval', 'severity', 'result'],
  );
}
/** One rule's outcome in a command result. */
export type RuleResult = Static<ReturnType<typeof ruleResult>>;

function commandResult() {
  return open(
    {
      raw: str({ description: 'the command as the template writes it' }),
      evaluated: str({ description: 'the command sent to the device' }),
      device: str(),
      response: str({ description: 'raw output of the device' }),
      result: bool(),
      all_pass_flag: bool({ description: 'passRule of the command' }),
      parameters: anyObject('values of the variables the command used'),
      rules: arr(ruleResult()),
      skipped: bool({ description: 'not run: a variable had no value' }),
      message: str({ description: 'why the command was skipped or failed' }),
    },
    ['raw', 'evaluated', 'device', 'response', 'result', 'all_pass_flag', 'parameters', 'rules'],
  );
}
/** One command run on one device, with its rules evaluated. */
export type CommandResult = Static<ReturnType<typeof commandResult>>;

/** The answer of RunCommandTemplate and RunCommandTemplateSingleCommand. */
export const templateRunResultSchema = withId(
  'nap:schemas/template-run-result',
  open(
    {
      name: str({ description: 'template name' }),
      all_pass_flag: bool({ description: 'passRule of the template' }),
      result: bool({ description: 'overall result over every device' }),
      commands_results: arr(commandResult(), { description: 'one entry per command per device' }),
      runId: str({ description: 'id of the stored run (GET /mop/runs/:id)' }),
    },
    ['name', 'all_pass_flag', 'result', 'commands_results'],
  ),
);
/** The answer of a command template run. */
export type TemplateRunResult = Static<typeof templateRunResultSchema>;

function analyticRuleResult() {
  return open({ type: str(), severity: str(), result: bool(), preValue: anyValue(), postValue: anyValue(), message: str() }, [
    'type',
    'severity',
    'result',
  ]);
}
/** One analytic rule's outcome. */
export type AnalyticRuleResult = Static<ReturnType<typeof analyticRuleResult>>;

function analyticCommandResult() {
  return open(
    {
      preRawCommand: str(),
      postRawCommand: str(),
      device: str(),
      preResponse: str(),
      postResponse: str(),
      result: bool(),
      all_pass_flag: bool(),
      rules: arr(analyticRuleResult()),
      message: str(),
    },
    ['preRawCommand', 'postRawCommand', 'device', 'result', 'all_pass_flag', 'rules'],
  );
}
/** One pre/post command pair compared on one device. */
export type AnalyticCommandResult = Static<ReturnType<typeof analyticCommandResult>>;

/** The answer of the analytic runs. */
export const analyticRunResultSchema = withId(
  'nap:schemas/analytic-run-result',
  open(
    {
      name: str({ description: 'analytic template name' }),
      all_pass_flag: bool(),
      result: bool(),
      commands_results: arr(analyticCommandResult()),
      runId: str(),
    },
    ['name', 'all_pass_flag', 'result', 'commands_results'],
  ),
);
/** The answer of runAnalyticsTemplate and runAnalyticsTemplateDevices. */
export type AnalyticRunResult = Static<typeof analyticRunResultSchema>;

/** Kinds of template run. */
export const TEMPLATE_RUN_KINDS = ['command', 'analytic'] as const;
/** One of {@link TEMPLATE_RUN_KINDS}. */
export type TemplateRunKind = (typeof TEMPLATE_RUN_KINDS)[number];

/** A stored template run. */
export const templateRunSchema = withId(
  'nap:schemas/template-run',
  obj(
    {
      _id: str(),
      template: str({ description: 'template name' }),
      kind: oneOf(TEMPLATE_RUN_KINDS),
      devices: arr(str()),
      variables: anyObject('values of secret-looking names are masked'),
      result: bool(),
      started: epochMs(),
      finished: epochMs(),
      createdBy: str(),
      output: anyObject('the answer of the run'),
    },
    ['_id', 'template', 'kind', 'result', 'started', 'finished'],
  ),
);
/** A stored template run (history of the command and analytic template runs; an addition). */
export type TemplateRun = Static<typeof templateRunSchema>;

/** A scheduled re-attempt of a workflow step (reattempt); stored only, never answered whole. */
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
export const reattemptResultSchema = withId(
  'nap:schemas/reattempt-result',
  obj(
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
);
