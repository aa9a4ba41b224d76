#!/usr/bin/env node
// A service that follows NAP's job events over NATS with a durable JetStream consumer: it sees
// every event once it has started, and after a restart it goes on where it stopped (the consumer's
// position is kept by JetStream, under its name). Run it beside a NAP deployment:
//
//   NATS_URL=nats://127.0.0.1:4222 node docs/examples/follow-job-events.mjs
//
// Events: see GET /asyncapi.json (docs/asyncapi.json) for every subject and payload.
import { connect } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';

const STREAM = 'NAP_EVENTS';
const CONSUMER = process.env.CONSUMER ?? 'job-event-follower'; // one name per service; its replicas share it
const FILTER = 'nap.evt.workflow.job.*.*'; // every job event; nap.evt.workflow.job.*.jobComplete for one kind

const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: CONSUMER });
const jsm = await jetstreamManager(nc);
try {
  await jsm.consumers.info(STREAM, CONSUMER);
} catch {
  // first start: a durable consumer that starts with the events published from now on
  await jsm.consumers.add(STREAM, { durable_name: CONSUMER, filter_subject: FILTER, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.New, max_deliver: 10 });
}
const consumer = await jetstream(nc).consumers.get(STREAM, CONSUMER);
const messages = await consumer.consume();
process.once('SIGTERM', () => void messages.close().then(() => nc.drain()));
console.log(JSON.stringify({ following: FILTER, consumer: CONSUMER }));

for await (const m of messages) {
  const [, , , , jobId, event] = m.subject.split('.');
  const payload = m.json(); // { jobId, name, status, timestamp, … } as the AsyncAPI document describes
  // do the work first, acknowledge after: an event that was not acknowledged is delivered again
  console.log(JSON.stringify({ seq: m.seq, event, jobId, workflow: payload.name, status: payload.status }));
  m.ack();
}
