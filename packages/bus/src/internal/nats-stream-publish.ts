import { AppError } from '@nap/contracts';
import { headers as natsHeaders } from '@nats-io/nats-core';
import type { MsgHdrs } from '@nats-io/nats-core';
import { errorMessage } from '@nap/util';
import type { ReplyInbox } from './nats-reply-inbox';

/** Longest a publish waits for JetStream's acknowledgement (as nats.js's JetStream client waits). */
export const STREAM_PUBLISH_TIMEOUT_MS = 5_000;

/** JetStream's acknowledgement of a stored message. */
export interface StreamAck {
  stream: string;
  seq: number;
  /** The message id (`Nats-Msg-Id`) was seen within the stream's duplicate window: not stored again. */
  duplicate: boolean;
}

const decoder = new TextDecoder();

/**
 * Publishes a message to the JetStream stream that stores `subject` and resolves with its
 * acknowledgement: what nats.js's `jetstream().publish` does, over the connection's reply inbox.
 * nats.js's JetStream publish is a core request, which makes an `Error` with its stack on every
 * acknowledgement, good ones included; the job engine and the audit trail publish one per event.
 * `msgId` becomes `Nats-Msg-Id` (JetStream keeps one message per id within its duplicate window).
 *
 * Errors: `SERVICE_UNAVAILABLE` when no stream stores the subject (no responders; see
 * `isNoResponders`) or the connection is gone, or JetStream answers 503; `TIMEOUT`; `INTERNAL` when
 * JetStream refuses the message otherwise.
 */
export async function publishToStream(
  inbox: ReplyInbox,
  subject: string,
  data: Uint8Array,
  options: { headers?: MsgHdrs; msgId?: string; timeoutMs?: number } = {},
): Promise<StreamAck> {
  let headers = options.headers;
  if (options.msgId !== undefined) {
    headers ??= natsHeaders();
    headers.set('Nats-Msg-Id', options.msgId);
  }
  const reply = await inbox.request(subject, data, headers, options.timeoutMs ?? STREAM_PUBLISH_TIMEOUT_MS);
  let answer: { stream?: unknown; seq?: unknown; duplicate?: unknown; error?: { code?: unknown; description?: unknown } };
  try {
    answer = JSON.parse(decoder.decode(reply.data)) as typeof answer;
  } catch (err) {
    throw new AppError('INTERNAL', `JetStream answered a publish on "${subject}" with no acknowledgement: ${errorMessage(err)}`);
  }
  if (answer.error !== undefined) {
    const description = typeof answer.error.description === 'string' ? answer.error.description : 'no description';
    throw new AppError(
      answer.error.code === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL',
      `JetStream refused a publish on "${subject}": ${description}`,
    );
  }
  if (typeof answer.stream !== 'string' || answer.stream === '' || typeof answer.seq !== 'number')
    throw new AppError('INTERNAL', `JetStream answered a publish on "${subject}" with no acknowledgement`);
  return { stream: answer.stream, seq: answer.seq, duplicate: answer.duplicate === true };
}
