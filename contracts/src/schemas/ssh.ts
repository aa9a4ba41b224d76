import type { Static } from '@sinclair/typebox';
import { anyValue, embed, int, name, obj, open, str, strings, withId } from './common';

/** The SSH port used when `connection_options.port` is absent (the spec's only stated constant). */
export const DEFAULT_SSH_PORT = 22;

/** Connection options: `device_type` required, `port` an integer defaulting to 22. Driver options pass through. */
export const sshConnectionOptionsSchema = withId(
  'nap:schemas/ssh-connection-options',
  open(
    {
      device_type: name('network OS driver, for example cisco_ios'),
      username: str(),
      password: str({ description: 'never logged or returned' }),
      port: int({ minimum: 1, maximum: 65535, default: DEFAULT_SSH_PORT }),
    },
    ['device_type'],
  ),
);
/** Connection options of the SSH wrappers; `port` is filled in with 22 by validation when absent. */
export type SshConnectionOptions = Static<typeof sshConnectionOptionsSchema>;

/** Body of `POST /gw/ssh/send_command`. */
export const sshSendCommandBodySchema = withId(
  'nap:schemas/ssh-send-command-body',
  obj(
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
);
/** Body of `POST /gw/ssh/send_command`. */
export type SshSendCommandBody = Static<typeof sshSendCommandBodySchema>;

/** Result of `POST /gw/ssh/send_command`. */
export const sshSendCommandResultSchema = withId(
  'nap:schemas/ssh-send-command-result',
  obj(
    {
      status: str({ description: 'success or error' }),
      code: int({ description: 'status code of the exchange' }),
      result: anyValue({ description: 'output of each command, in the order sent' }),
    },
    ['status', 'code'],
  ),
);
/** Result of `POST /gw/ssh/send_command`: status, code and the output per command, in the order sent. */
export type SshSendCommandResult = Static<typeof sshSendCommandResultSchema>;
