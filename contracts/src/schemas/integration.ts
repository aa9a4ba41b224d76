import type { Static } from '@sinclair/typebox';
import { arr, bool, embed, int, obj, open, str, strings, withId } from './common';

/** Logger properties of an integration or adapter; members beyond these are kept as given. */
export const loggerPropsSchema = withId(
  'nap:schemas/logger-props',
  open({
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
    syslog: open({
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
);
/** Logger properties of an integration or adapter. */
export type LoggerProps = Static<typeof loggerPropsSchema>;

/** An integration record, item of `GET /integrations` (operation 9). */
export const integrationRecordSchema = withId(
  'nap:schemas/integration-record',
  open({
    metadata: open({ isActive: bool(), activeSync: bool({ description: 'on some items only' }) }, ['isActive']),
    data: open({
      loggerProps: embed(loggerPropsSchema),
      isEncrypted: bool(),
      model: str(),
      name: str(),
      type: str({ description: 'value Application in examples' }),
      properties: open({ id: str(), type: str(), brokers: strings(), groups: strings({ description: 'group ids' }) }),
      profiling: bool(),
      virtual: bool(),
      systemProps: open({ maxOldSpaceSize: int() }),
      eventDeduplication: open({
        active: bool(),
        cacheTtl: int(),
        algorithm: str({ description: 'for example md5' }),
        uniqueProps: strings({ description: 'JSON pointers' }),
      }),
    }),
  }),
);
/** An integration record, item of `GET /integrations` (operation 9). */
export type IntegrationRecord = Static<typeof integrationRecordSchema>;

/** `{ results, total }` of `GET /integrations` (operation 9). */
export const integrationListSchema = withId(
  'nap:schemas/integration-list',
  obj({ results: arr(embed(integrationRecordSchema)), total: int({ minimum: 0 }) }, ['results', 'total']),
);
/** `{ results, total }` of `GET /integrations`. */
export type IntegrationList = Static<typeof integrationListSchema>;
