import { createInbox } from '@nats-io/nats-core';
import type { Msg, MsgHdrs, NatsConnection, Subscription as NatsSubscription } from '@nats-io/nats-core';
import { closedError, noRespondersError, timeoutError } from './errors';

/**
 * The cause of the error a request answered by the server's no-responders status rejects with
 * (one object for all: no stack is made per request); `isNoResponders` knows it.
 */
export const NO_RESPONDERS_STATUS: Error = Object.freeze(new Error('503 no responders'));

interface Waiting {
  subject: string;
  resolve: (reply: Msg) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * Request/reply over one reply subscription (`<inbox>.*`) shared by every request of the connection,
 * each request waiting under its own token, as nats.js's own `request` does. nats.js makes three
 * `Error`s for each request (stack traces included, async frames and all), one of them on every
 * reply, even a good one: about a tenth of what a gateway spends per request. Here an error is made
 * only for a request that failed, already as the bus's `AppError` (`TIMEOUT`, `SERVICE_UNAVAILABLE`).
 */
export class ReplyInbox {
  private readonly prefix: string;
  private readonly waiting = new Map<string, Waiting>();
  private subscription: NatsSubscription | undefined;
  private next = 0;

  constructor(private readonly nc: NatsConnection) {
    this.prefix = `${createInbox()}.`;
    void nc.closed().then(() => this.failAll(closedError('wait for a reply')));
  }

  /**
   * Sends `data` to `subject` and resolves with the reply; rejects with `TIMEOUT` after `timeoutMs`,
   * `SERVICE_UNAVAILABLE` when nobody listens on the subject (the server's no-responders status) or
   * the connection closed, and with what `publish` threw when it could not be sent.
   */
  request(subject: string, data: Uint8Array, headers: MsgHdrs | undefined, timeoutMs: number): Promise<Msg> {
    this.subscription ??= this.nc.subscribe(`${this.prefix}*`, { callback: (_err, msg) => this.answer(msg) });
    const token = (this.next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(token);
        reject(timeoutError(subject, timeoutMs));
      }, timeoutMs);
      this.waiting.set(token, { subject, resolve, reject, timer });
      try {
        this.nc.publish(subject, data, { reply: `${this.prefix}${token}`, ...(headers !== undefined ? { headers } : {}) });
      } catch (err) {
        clearTimeout(timer);
        this.waiting.delete(token);
        reject(err);
      }
    });
  }

  private answer(msg: Msg | undefined): void {
    if (msg === undefined || !msg.subject.startsWith(this.prefix)) return;
    const token = msg.subject.slice(this.prefix.length);
    const waiting = this.waiting.get(token);
    if (waiting === undefined) return;
    this.waiting.delete(token);
    clearTimeout(waiting.timer);
    // the server answers a request nobody listens to with an empty 503 status message
    if (msg.data.length === 0 && msg.headers?.code === 503) waiting.reject(noRespondersError(waiting.subject, NO_RESPONDERS_STATUS));
    else waiting.resolve(msg);
  }

  private failAll(err: unknown): void {
    for (const waiting of this.waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(err);
    }
    this.waiting.clear();
  }
}
