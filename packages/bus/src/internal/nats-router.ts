import { AppError } from '@nap/contracts';
import type { Msg, MsgHdrs, NatsConnection, Subscription as NatsSubscription } from '@nats-io/nats-core';
import type { BusHeaders, BusMessage, BusReply, RequestOptions, Subscription } from '../types';
import { isValidPattern, isValidSubject } from '../subject-match';
import { closedError, invalidArgument } from './errors';
import { copyBytes } from './headers';
import type { BusLogger } from './logger';
import type { ReplyInbox } from './nats-reply-inbox';
import { fromNatsHeaders, isConnectionGone, requestFailure, toNatsHeaders } from './nats-convert';
import { isPromiseLike } from './signal';

/** A core NATS message as a subscriber sees it, with `reply` when the sender waits for an answer. */
export type RoutedMessage = BusMessage & { reply?: (data: Uint8Array, headers?: BusHeaders) => void };

/**
 * Core NATS: request/reply, publish and subscribe, with the bus's checks (subjects, headers,
 * timeouts) and its errors. Keeps the subscriptions it made so that closing drains them.
 */
export class NatsRouter {
  private readonly subscriptions = new Set<NatsSubscription>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly connection: { isConnected(): boolean },
    private readonly logger: BusLogger,
    private readonly isClosing: () => boolean,
    /** The connection's reply inbox, shared with the stream publishes. */
    private readonly replies: ReplyInbox,
  ) {}

  async request(subject: string, data: Uint8Array, options: RequestOptions): Promise<BusReply> {
    if (!isValidSubject(subject)) throw invalidArgument(`Request subject "${subject}" is not valid`);
    const { timeoutMs } = options;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 1) throw invalidArgument(`timeoutMs must be >= 1, got ${timeoutMs}`);
    // while NATS is away nobody can answer: say so at once rather than after the whole timeout
    if (!this.connection.isConnected())
      throw new AppError('SERVICE_UNAVAILABLE', `The message bus is disconnected; "${subject}" cannot be reached until it reconnects`);
    // NATS refuses a message over the server's max_payload: a request body the gateway accepted must not become a 500
    const maxPayload = this.nc.info?.max_payload;
    if (maxPayload !== undefined && data.length > maxPayload)
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The request (${data.length} bytes) is larger than the NATS server's max_payload of ${maxPayload} bytes; raise max_payload in its configuration (8MB, for documents up to NAP_DOCUMENT_BODY_LIMIT_BYTES)`,
      );
    const headers = toNatsHeaders(options.headers);
    let reply: Msg;
    try {
      const bytes = copyBytes(data);
      const { hedgeAfterMs } = options;
      reply =
        hedgeAfterMs !== undefined && hedgeAfterMs > 0 && hedgeAfterMs < timeoutMs
          ? await this.hedged(subject, bytes, headers, timeoutMs, hedgeAfterMs)
          : await this.replies.request(subject, bytes, headers, timeoutMs);
    } catch (err) {
      throw requestFailure(err, subject, timeoutMs);
    }
    return { data: reply.data, headers: fromNatsHeaders(reply.headers) };
  }

  /**
   * Sends the request, and once more after `hedgeAfterMs` without a reply; the first reply to either
   * is the answer, and both wait at most until the first one's timeout ends. A failure of the first
   * before the second is sent (no responders, the connection closed) is the answer at once; after
   * that, the request fails only once both have.
   */
  private hedged(subject: string, data: Uint8Array, headers: MsgHdrs | undefined, timeoutMs: number, hedgeAfterMs: number): Promise<Msg> {
    const deadline = Date.now() + timeoutMs;
    return new Promise<Msg>((resolve, reject) => {
      let open = 1;
      let settled = false;
      let firstError: unknown;
      const attempt = (ms: number): void => {
        this.replies.request(subject, data, headers, ms).then(
          (msg) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve(msg);
          },
          (err: unknown) => {
            open -= 1;
            firstError ??= err;
            if (settled || open > 0) return;
            settled = true;
            clearTimeout(timer);
            reject(firstError);
          },
        );
      };
      let timer: NodeJS.Timeout | undefined = setTimeout(() => {
        timer = undefined;
        if (settled) return;
        open += 1;
        attempt(Math.max(1, deadline - Date.now()));
      }, hedgeAfterMs);
      attempt(timeoutMs);
    });
  }

  publish(subject: string, data: Uint8Array, headers?: BusHeaders): void {
    if (!isValidSubject(subject)) throw invalidArgument(`Publish subject "${subject}" is not valid`);
    const h = toNatsHeaders(headers);
    try {
      this.nc.publish(subject, copyBytes(data), { headers: h });
    } catch (err) {
      throw closedError(`publish on "${subject}"`, err);
    }
  }

  subscribe(subject: string, handler: (msg: RoutedMessage) => void, options: { queue?: string } = {}): Subscription {
    if (!isValidPattern(subject)) throw invalidArgument(`Subscription subject "${subject}" is not valid`);
    if (options.queue !== undefined && (options.queue === '' || /\s/.test(options.queue))) {
      throw invalidArgument(`Queue group "${options.queue}" is not valid`);
    }
    if (this.isClosing()) throw closedError(`subscribe to "${subject}"`);
    let sub: NatsSubscription;
    try {
      sub = this.nc.subscribe(subject, {
        queue: options.queue,
        callback: (err, msg) => {
          if (err) {
            this.logger.error({ err, subject }, 'subscription failed');
            return;
          }
          this.deliver(subject, msg, handler);
        },
      });
    } catch (err) {
      throw closedError(`subscribe to "${subject}"`, err);
    }
    this.subscriptions.add(sub);
    return {
      unsubscribe: async () => {
        this.subscriptions.delete(sub);
        await this.drainSubscription(sub);
      },
    };
  }

  /** Drains every subscription still open: messages already received are handled. */
  async drainAll(): Promise<void> {
    await Promise.allSettled([...this.subscriptions].map((s) => this.drainSubscription(s)));
    this.subscriptions.clear();
  }

  private deliver(pattern: string, msg: Msg, handler: (msg: RoutedMessage) => void): void {
    const message: RoutedMessage = { subject: msg.subject, data: msg.data, headers: fromNatsHeaders(msg.headers) };
    const replyTo = msg.reply;
    if (replyTo !== undefined && replyTo !== '') {
      message.reply = (data, headers) => this.publish(replyTo, data, headers);
    }
    try {
      const result: unknown = handler(message);
      if (isPromiseLike(result)) {
        result.then(undefined, (err: unknown) => this.logger.error({ err, subject: msg.subject, pattern }, 'subscriber failed'));
      }
    } catch (err) {
      this.logger.error({ err, subject: msg.subject, pattern }, 'subscriber threw');
    }
  }

  private async drainSubscription(sub: NatsSubscription): Promise<void> {
    if (this.nc.isClosed() || sub.isClosed() || sub.isDraining()) return;
    try {
      await sub.drain();
    } catch (err) {
      if (!isConnectionGone(err)) throw err;
    }
  }
}
