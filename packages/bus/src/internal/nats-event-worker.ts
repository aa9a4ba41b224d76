import { sleep } from '@nap/util';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { BusEvent } from '../types';
import type { ResolvedConsumerSettings } from './events';
import { copyBytes } from './headers';
import type { BusLogger } from './logger';
import { fromNatsHeaders } from './nats-convert';

/**
 * Feeds one JetStream consumer's messages to a handler, one at a time. A durable consumer's event
 * is acked when the handler resolves, redelivered by the server after a nak, and terminated after
 * `maxDeliver` deliveries; an ordered consumer has no acks, so the worker retries in place.
 */
export class NatsEventWorker {
  private readonly abort = new AbortController();
  private stopping = false;
  private readonly done: Promise<void>;

  constructor(
    private readonly messages: ConsumerMessages,
    private readonly handler: (event: BusEvent) => Promise<void> | void,
    private readonly durable: boolean,
    private readonly settings: ResolvedConsumerSettings,
    private readonly logger: BusLogger,
    private readonly filter: string,
  ) {
    this.done = this.run();
  }

  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.abort.abort();
      await this.messages.close().catch(() => undefined);
    }
    await this.done;
  }

  private async run(): Promise<void> {
    try {
      for await (const m of this.messages) {
        if (this.stopping) {
          // handed back at once so another replica (or the next subscription) gets it
          if (this.durable) m.nak();
          continue;
        }
        if (this.durable) await this.handleDurable(m);
        else await this.handleOrdered(m);
      }
    } catch (err) {
      if (!this.stopping) this.logger.error({ err, filter: this.filter }, 'event consumer stopped');
    }
  }

  private async handleDurable(m: JsMsg): Promise<void> {
    m.working();
    try {
      await this.handler(toBusEvent(m));
    } catch (err) {
      const deliveries = m.info.deliveryCount;
      if (deliveries >= this.settings.maxDeliver) {
        this.logger.error({ err, subject: m.subject, seq: m.seq, deliveries }, 'event handler failed; giving the event up');
        m.term();
      } else {
        this.logger.warn({ err, subject: m.subject, seq: m.seq, deliveries }, 'event handler failed; the event will be redelivered');
        m.nak(this.settings.redeliveryDelayMs);
      }
      return;
    }
    try {
      await m.ackAck();
    } catch (err) {
      this.logger.warn({ err, subject: m.subject, seq: m.seq }, 'event ack failed; the event may be redelivered');
    }
  }

  private async handleOrdered(m: JsMsg): Promise<void> {
    const event = toBusEvent(m);
    for (let delivery = 1; ; delivery++) {
      try {
        await this.handler(delivery === 1 ? event : { ...event, data: copyBytes(event.data), headers: { ...event.headers } });
        return;
      } catch (err) {
        if (delivery >= this.settings.maxDeliver || this.stopping) {
          this.logger.error({ err, subject: m.subject, seq: m.seq, deliveries: delivery }, 'event handler failed; giving the event up');
          return;
        }
        this.logger.warn(
          { err, subject: m.subject, seq: m.seq, deliveries: delivery },
          'event handler failed; the event will be redelivered',
        );
        await sleep(this.settings.redeliveryDelayMs, this.abort.signal);
        if (this.stopping) return;
      }
    }
  }
}

function toBusEvent(m: JsMsg): BusEvent {
  return {
    subject: m.subject,
    data: m.data,
    headers: fromNatsHeaders(m.headers),
    seq: m.seq,
    timestamp: Number(m.timestampNanos / 1_000_000n),
  };
}
