import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import radius from 'radius';
import type { RadiusProviderConfig } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { providerUnavailable, radiusServer, recheckMinutesOf, serverTimeoutMs } from '../domain/sign-in';
import type { PasswordMethod, PasswordOutcome } from '../domain/sign-in';

/** The reply attribute that carries the groups when the provider names none. */
const DEFAULT_GROUPS_ATTRIBUTE = 'Class';

/** What one server answered: its decoded reply. */
type Reply = radius.RadiusPacket;

/**
 * RADIUS servers as a password method: an Access-Request with PAP (`User-Password` hidden with the
 * shared secret, as RFC 2865 says) and a Message-Authenticator, sent to each server in turn until
 * one answers within its timeout (resent once halfway through, as the same packet). Only a reply
 * whose Response Authenticator and Message-Authenticator hold for the shared secret is believed.
 * Access-Accept signs the person in, with the values of the groups attribute (`Class` by default)
 * as their groups; Access-Reject refuses. The packets are encoded and checked by the `radius`
 * codec; this class only carries them over a UDP socket.
 *
 * RADIUS cannot look a person up without their password, so it has no re-check: its sessions end
 * when the re-check interval has passed, and the person signs in again.
 */
export class RadiusServers implements PasswordMethod {
  readonly kind = 'password';
  readonly type = 'radius';
  readonly recheckMinutes: number;
  private readonly timeoutMs: number;
  private readonly groupsAttribute: string;

  constructor(
    readonly name: string,
    private readonly config: RadiusProviderConfig,
    readonly adminGroups: readonly string[],
    private readonly log: Logger,
  ) {
    this.timeoutMs = serverTimeoutMs(config);
    this.recheckMinutes = recheckMinutesOf(config);
    this.groupsAttribute = config.groupsAttribute ?? DEFAULT_GROUPS_ATTRIBUTE;
  }

  async authenticate(username: string, password: string): Promise<PasswordOutcome> {
    if (password === '') return { outcome: 'rejected', reason: 'empty password' };
    let last = 'no server is configured';
    for (const server of this.config.servers) {
      const address = radiusServer(server);
      if (address === undefined) continue;
      let reply: Reply | undefined;
      try {
        reply = await this.exchange(address.host, address.port, username, password);
      } catch (err) {
        last = `${server}: ${err instanceof Error ? err.message : String(err)}`;
        this.log.warn({ provider: this.name, server, err: last }, 'RADIUS server failed; trying the next one');
        continue;
      }
      if (reply === undefined) {
        last = `${server}: no answer within ${this.timeoutMs} ms`;
        this.log.warn({ provider: this.name, server }, 'RADIUS server did not answer; trying the next one');
        continue;
      }
      if (reply.code === 'Access-Accept') return { outcome: 'accepted', identity: { username, groups: this.groupsOf(reply) } };
      return {
        outcome: 'rejected',
        reason: reply.code === 'Access-Challenge' ? 'the server asked a challenge, which NAP does not answer' : 'rejected',
      };
    }
    throw providerUnavailable(this.name, last);
  }

  async close(): Promise<void> {
    // a socket lives for one request: nothing stays open
  }

  /**
   * One Access-Request to one server: its verified reply, or undefined when none came within the
   * timeout. A packet from elsewhere, for another request or failing the secret is ignored.
   */
  private exchange(host: string, port: number, username: string, password: string): Promise<Reply | undefined> {
    const identifier = randomInt(256);
    const request = radius.encode({
      code: 'Access-Request',
      secret: this.config.secret,
      identifier,
      // with it, the codec also requires a right Message-Authenticator in the reply
      add_message_authenticator: this.config.messageAuthenticator !== false,
      attributes: [
        ['User-Name', username],
        ['User-Password', password],
        ['NAS-Identifier', this.config.nasIdentifier ?? 'nap'],
        ['Service-Type', 'Login-User'],
      ],
    });
    const socket = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
    return new Promise<Reply | undefined>((resolve, reject) => {
      const timers: NodeJS.Timeout[] = [];
      let settled = false;
      const done = (error: Error | undefined, reply?: Reply) => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        socket.close();
        if (error) reject(error);
        else resolve(reply);
      };
      socket.on('error', (err) => done(err));
      socket.on('message', (message) => {
        let decoded: Reply;
        try {
          decoded = radius.decode({ packet: message, secret: this.config.secret });
          // verify_response writes into the packet it checks: give it a copy
          if (
            decoded.identifier !== identifier ||
            !radius.verify_response({ request, response: Buffer.from(message), secret: this.config.secret })
          ) {
            this.log.warn(
              { provider: this.name, server: `${host}:${port}` },
              'RADIUS reply ignored: it is not for this request or fails the shared secret',
            );
            return;
          }
        } catch (err) {
          this.log.warn(
            { provider: this.name, server: `${host}:${port}`, err: (err as Error).message },
            'RADIUS reply ignored: it cannot be decoded',
          );
          return;
        }
        done(undefined, decoded);
      });
      const send = () => {
        if (settled) return;
        socket.send(request, port, host, (err) => {
          if (err) done(err);
        });
      };
      send();
      // UDP may lose the request: the same packet again halfway, which a server treats as a retransmission
      timers.push(setTimeout(send, Math.floor(this.timeoutMs / 2)));
      timers.push(setTimeout(() => done(undefined, undefined), this.timeoutMs));
    });
  }

  /** The values of the groups attribute, as text (`Class` is octets on the wire). */
  private groupsOf(reply: Reply): string[] {
    // own members only: an attribute named constructor is absent unless the server sent it
    const value: unknown = Object.hasOwn(reply.attributes, this.groupsAttribute) ? reply.attributes[this.groupsAttribute] : undefined;
    const values: unknown[] = value === undefined ? [] : Array.isArray(value) ? value : [value];
    return values.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v))).filter((v) => v !== '');
  }
}
