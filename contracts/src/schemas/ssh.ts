import type { JsonSchema } from '../catalog/types';
import { embed, int, name, obj, str, strings } from './common';

/** The SSH port used when `connection_options.port` is absent (the spec's only stated constant). */
export const DEFAULT_SSH_PORT = 22;

/** Connection options of the SSH wrappers. */
export interface SshConnectionOptions {
  /** Network OS driver name, for example `cisco_ios`. */
  device_type: string;
  username?: string;
  password?: string;
  /** Defaults to 22; validation fills it in. */
  port?: number;
  [member: string]: unknown;
}

/** Body of `POST /gw/ssh/send_command` (operation 11). */
export interface SshSendCommandBody {
  sshSendCommandParameters: {
    host: string;
    commands: string[];
    connection_options: SshConnectionOptions;
    [member: string]: unknown;
  };
  [member: string]: unknown;
}

/** Result of operation 11: status, code and the command output. */
export interface SshSendCommandResult {
  status: string;
  code: number;
  /** Output per command, in the order sent. */
  result?: unknown;
  [member: string]: unknown;
}

/** Connection options: `device_type` required, `port` an integer defaulting to 22. Driver options pass through. */
export const sshConnectionOptionsSchema: JsonSchema = {
  $id: 'nap:schemas/ssh-connection-options',
  ...obj(
    {
      device_type: name('network OS driver, for example cisco_ios'),
      username: str(),
      password: str({ description: 'never logged or returned' }),
      port: int({ minimum: 1, maximum: 65535, default: DEFAULT_SSH_PORT }),
    },
    ['device_type'],
  ),
};

/** Body of operation 11. */
export const sshSendCommandBodySchema: JsonSchema = {
  $id: 'nap:schemas/ssh-send-command-body',
  ...obj(
    {
      sshSendCommandParameters: obj(
        {
          host: name('device host name or address'),
          commands: strings({ description: 'commands to send, in order' }),
          connection_options: embed(sshConnectionOptionsSchema),
        },
        ['host', 'commands', 'connection_options'],
      ),
    },
    ['sshSendCommandParameters'],
  ),
};

/** Result of operation 11. */
export const sshSendCommandResultSchema: JsonSchema = {
  $id: 'nap:schemas/ssh-send-command-result',
  ...obj(
    {
      status: str({ description: 'success or error' }),
      code: int({ description: 'status code of the exchange' }),
      result: { description: 'output of each command, in the order sent' },
    },
    ['status', 'code'],
  ),
};
