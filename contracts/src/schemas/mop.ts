import type { JsonSchema } from '../catalog/types';
import { arr, bool, closed, embed, epochMs, name, obj, str } from './common';

/** A rule of a command of a command template. */
export interface CommandRule {
  rule?: string;
  /** For example `contains`. */
  eval?: string;
  raw?: string;
  result?: boolean;
  [member: string]: unknown;
}

/** Command template (mopTemplateDoc). */
export interface CommandTemplate {
  name: string;
  _id?: string;
  os?: string;
  passRule?: boolean;
  commands?: { command?: string; passRule?: boolean; rules?: CommandRule[]; [member: string]: unknown }[];
  /** Epoch milliseconds. */
  created?: number;
  /** Epoch milliseconds. */
  lastUpdated?: number;
  createdBy?: string;
  lastUpdatedBy?: string;
  [member: string]: unknown;
}

/** A rule of a pre/post command pair of an analytic template. */
export interface AnalyticRule {
  /** For example `regex`. */
  type?: string;
  preRegex?: string;
  postRegex?: string;
  /** For example `=`. */
  evaluation?: string;
  [member: string]: unknown;
}

/** Analytic template (mopAnalyticTemplateDoc). */
export interface AnalyticTemplate {
  name: string;
  _id?: string;
  os?: string;
  passRule?: boolean;
  prepostCommands?: {
    preRawCommand?: string;
    postRawCommand?: string;
    passRule?: boolean;
    rules?: AnalyticRule[];
    preCommandResHTML?: string;
    postCommandResHTML?: string;
    [member: string]: unknown;
  }[];
  created?: number;
  lastUpdated?: number;
  createdBy?: string;
  lastUpdatedBy?: string;
  [member: string]: unknown;
}

/** Body of `POST /mop/createAnalyticTemplate` (operation 14). */
export interface CreateAnalyticTemplateBody {
  template: AnalyticTemplate;
}

function commandRule(): JsonSchema {
  return obj({ rule: str(), eval: str({ description: 'for example contains' }), raw: str(), result: bool() });
}

function commandTemplateProperties(): Record<string, JsonSchema> {
  return {
    name: name('template name'),
    _id: str(),
    os: str({ description: 'operating system kind' }),
    passRule: bool({ description: 'overall result' }),
    commands: arr(obj({ command: str(), passRule: bool(), rules: arr(commandRule()) })),
    created: epochMs(),
    lastUpdated: epochMs(),
    createdBy: str(),
    lastUpdatedBy: str(),
  };
}

/** Command template (mopTemplateDoc). */
export const commandTemplateSchema: JsonSchema = {
  $id: 'nap:schemas/command-template',
  ...obj(commandTemplateProperties(), ['name']),
};

function analyticRule(): JsonSchema {
  return obj({ type: str({ description: 'for example regex' }), preRegex: str(), postRegex: str(), evaluation: str({ description: 'for example =' }) });
}

function analyticTemplateProperties(): Record<string, JsonSchema> {
  return {
    name: name('template name'),
    _id: str(),
    os: str({ description: 'operating system kind' }),
    passRule: bool({ description: 'overall result' }),
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
    createdBy: str(),
    lastUpdatedBy: str(),
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

/** One device's outcome of a template run. */
export interface TemplateRunDeviceResult {
  device: string;
  passRule?: boolean;
  commands?: Record<string, unknown>[];
  error?: string;
  [member: string]: unknown;
}

/** A stored template run (history of `RunCommandTemplate` and the analytic runs; an addition). */
export interface TemplateRun {
  _id: string;
  template: string;
  kind: 'command' | 'analytic';
  devices?: string[];
  variables?: Record<string, unknown>;
  passRule?: boolean;
  results?: TemplateRunDeviceResult[];
  /** Epoch milliseconds. */
  started?: number;
  /** Epoch milliseconds. */
  finished?: number;
  createdBy?: string;
  [member: string]: unknown;
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
      variables: { type: 'object' },
      passRule: bool(),
      results: arr(obj({ device: str(), passRule: bool(), commands: arr({ type: 'object' }), error: str() }, ['device'])),
      started: epochMs(),
      finished: epochMs(),
      createdBy: str(),
    },
    ['_id', 'template', 'kind'],
  ),
};
