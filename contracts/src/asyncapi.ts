import type { JsonSchema } from './catalog/types';
import { EVENTS } from './events';
import type { EventDef } from './events';
import { RELEASE } from './services';
import { EVENT_PREFIX } from './subjects';

/** An AsyncAPI document, as JSON. */
export type AsyncApiDocument = Record<string, unknown>;

/** What an event's `<id>` token is, by entity. */
const ENTITY_IDS: Record<string, string> = {
  job: 'the job id',
  session: 'the session id',
  account: 'the account id',
  group: 'the group id',
  reattempt: 'the re-attempt id',
  audit: "the record's seq in the audit chain",
};

/** Ordering and delivery, as subscribers may rely on them. */
const DELIVERY =
  'Events are stored in the JetStream stream NAP_EVENTS (subjects nap.evt.>; kept 7 days and up to 1 GiB by default, the oldest dropped first) ' +
  'and delivered at least once: a consumer that acknowledges late, or a durable consumer that restarts, may see an event again; the stream ' +
  'sequence of a delivery identifies it. A job event may also be published twice (an engine that died between publishing it and recording that): ' +
  "it carries seq, its position in the job's stream, and a repeat has the same seq. Events of one entity (one job) are published in order, " +
  'from an outbox written with the state they describe; events of ' +
  'different entities are not ordered with each other. Payloads accept members they do not name (consumers ignore them), except the admin events, which are exact.';

function key(e: EventDef): string {
  return `${e.service}.${e.entity}.${e.event}`;
}

function clean(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema, (k, v: unknown) => (k === '$id' ? undefined : v))) as JsonSchema;
}

/**
 * The AsyncAPI 3.0 document of the platform's events, generated from `EVENTS` (events.ts): one
 * channel per event (`nap.evt.<service>.<entity>.{id}.<event>`), its payload schema, and a receive
 * operation for subscribers. Served at `GET /asyncapi.json`; `docs/asyncapi.json` is kept equal to it
 * by a test.
 */
export function renderAsyncApi(): AsyncApiDocument {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const e of EVENTS) {
    const id = key(e);
    schemas[id] = { ...clean(e.schema), title: `${e.event} payload` };
    messages[id] = {
      name: e.event,
      title: e.event,
      summary: e.summary,
      contentType: 'application/json',
      payload: { $ref: `#/components/schemas/${id}` },
      headers: {
        type: 'object',
        properties: { traceparent: { type: 'string', description: 'W3C trace context of the publisher, when it traced' } },
      },
    };
    channels[id] = {
      address: `${EVENT_PREFIX}.${e.service}.${e.entity}.{id}.${e.event}`,
      title: `${e.service} ${e.entity} ${e.event}`,
      description: `${e.summary}. Published by the ${e.service} service.`,
      parameters: { id: { description: ENTITY_IDS[e.entity] ?? `the ${e.entity} id` } },
      messages: { [e.event]: { $ref: `#/components/messages/${id}` } },
    };
    operations[`receive.${id}`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${id}` },
      summary: `Follow ${e.event} events`,
      messages: [{ $ref: `#/channels/${id}/messages/${e.event}` }],
    };
  }
  return {
    asyncapi: '3.0.0',
    id: 'urn:nap:events',
    info: {
      title: 'NAP events',
      version: RELEASE,
      description:
        'Domain events of the network automation platform. Subscribe over NATS (JetStream stream NAP_EVENTS, durable consumers for services that must not miss one) ' +
        'or, without NATS access, over HTTP with GET /operations-manager/events (server-sent events of the job events the caller may see, resumable with Last-Event-ID up to 10,000 positions back; from further back a gap event comes first and names where the stream goes on). ' +
        DELIVERY,
    },
    defaultContentType: 'application/json',
    servers: {
      nats: {
        host: 'localhost:4222',
        protocol: 'nats',
        description: 'The NATS servers of the deployment (NAP_NATS_URL); events are in the JetStream stream NAP_EVENTS.',
      },
    },
    channels,
    operations,
    components: { messages, schemas },
  };
}
