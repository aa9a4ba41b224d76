import type { JsonSchema } from '../catalog/types';
import { arr, bool, embed, int, obj, str, strings } from './common';

/** Logger properties of an integration or adapter. */
export interface LoggerProps {
  log_max_files?: number;
  log_max_file_size?: number;
  /** Values that occur: info, debug, spam. */
  log_level?: string;
  log_directory?: string;
  log_filename?: string;
  console_level?: string;
  description?: string;
  log_timezone_offset?: number;
  metrics_filename?: string;
  metrics_max_files?: number;
  metrics_rotation_interval?: string;
  metrics_rotation_size?: string;
  syslog?: {
    level?: string;
    facility?: string;
    /** For example BSD or 5424. */
    type?: string;
    host?: string;
    port?: number;
    protocol?: string;
    path?: string;
    pid?: string;
    localhost?: string;
    app_name?: string;
    eol?: string;
    [member: string]: unknown;
  };
  [member: string]: unknown;
}

/** An integration record, item of `GET /integrations` (operation 9). */
export interface IntegrationRecord {
  metadata?: { isActive?: boolean; activeSync?: boolean; [member: string]: unknown };
  data?: {
    loggerProps?: LoggerProps;
    isEncrypted?: boolean;
    model?: string;
    name?: string;
    type?: string;
    properties?: { id?: string; type?: string; brokers?: string[]; groups?: string[]; [member: string]: unknown };
    profiling?: boolean;
    virtual?: boolean;
    systemProps?: { maxOldSpaceSize?: number; [member: string]: unknown };
    eventDeduplication?: { active?: boolean; cacheTtl?: number; algorithm?: string; uniqueProps?: string[]; [member: string]: unknown };
    [member: string]: unknown;
  };
  [member: string]: unknown;
}

/** `{ results, total }` of `GET /integrations`. */
export interface IntegrationList {
  results: IntegrationRecord[];
  total: number;
}

/** Logger properties. */
export const loggerPropsSchema: JsonSchema = {
  $id: 'nap:schemas/logger-props',
  ...obj({
    log_max_files: int({ minimum: 0 }),
    log_max_file_size: int({ minimum: 0 }),
    log_level: str({ description: 'values that occur: info, debug, spam' }),
    log_directory: str(),
    log_filename: str(),
    console_level: str(),
    description: str(),
    log_timezone_offset: int(),
    metrics_filename: str(),
    metrics_max_files: int({ minimum: 0 }),
    metrics_rotation_interval: str(),
    metrics_rotation_size: str(),
    syslog: obj({
      level: str(),
      facility: str(),
      type: str({ description: 'for example BSD or 5424' }),
      host: str(),
      port: int({ minimum: 0, maximum: 65535 }),
      protocol: str(),
      path: str(),
      pid: str(),
      localhost: str(),
      app_name: str(),
      eol: str(),
    }),
  }),
};

/** Integration record. */
export const integrationRecordSchema: JsonSchema = {
  $id: 'nap:schemas/integration-record',
  ...obj({
    metadata: obj({ isActive: bool(), activeSync: bool({ description: 'on some items only' }) }, ['isActive']),
    data: obj({
      loggerProps: embed(loggerPropsSchema),
      isEncrypted: bool(),
      model: str(),
      name: str(),
      type: str({ description: 'value Application in examples' }),
      properties: obj({ id: str(), type: str(), brokers: strings(), groups: strings({ description: 'group ids' }) }),
      profiling: bool(),
      virtual: bool(),
      systemProps: obj({ maxOldSpaceSize: int() }),
      eventDeduplication: obj({
        active: bool(),
        cacheTtl: int(),
        algorithm: str({ description: 'for example md5' }),
        uniqueProps: strings({ description: 'JSON pointers' }),
      }),
    }),
  }),
};

/** `{ results, total }` of `GET /integrations` (operation 9). */
export const integrationListSchema: JsonSchema = {
  $id: 'nap:schemas/integration-list',
  ...obj({ results: arr(embed(integrationRecordSchema)), total: int({ minimum: 0 }) }, ['results', 'total']),
};
