// The store floor of workflow.mjs, in a process of its own (forked by it, driven over IPC): the
// standalone platform's workflow store, and CONCURRENT chains of CHAIN sequential durable updates of
// a job-sized document. Its own process, so that neither the floor nor the engine pays for the
// other's garbage or timers, while their rounds still alternate on the same machine and disk.
//   parent → { type: 'start', doc, concurrent, chain }   child → { type: 'ready' }
//   parent → { type: 'round' }                            child → { type: 'round', elapsedMs, cpuMs, count }
//   parent → { type: 'stop' }                             child → { type: 'stopped' }, then exits
import { cpuMs, startBenchPlatform } from './standalone.mjs';

let bench;
let jobs;
let ids = [];
let chain = 0;

async function round() {
  const cpu = cpuMs();
  const started = performance.now();
  await Promise.all(
    ids.map(async (id) => {
      for (let i = 0; i < chain; i += 1)
        await jobs.updateOne(
          { _id: id, status: 'running' },
          {
            $set: {
              [`tasks.t${i.toString(16).padStart(3, '0')}`]: { status: 'complete', metrics: { end_time: Date.now() } },
              last_updated: new Date().toISOString(),
            },
          },
        );
    }),
  );
  return { elapsedMs: performance.now() - started, cpuMs: cpuMs() - cpu, count: ids.length * chain };
}

process.on('message', (message) => {
  const answer = async () => {
    if (message.type === 'start') {
      bench = await startBenchPlatform('wf-floor');
      jobs = bench.platform.stores.get('workflow').collection('bench_floor');
      chain = message.chain;
      ids = (await jobs.insertMany(Array.from({ length: message.concurrent }, () => structuredClone(message.doc)))).map((d) => d._id);
      return { type: 'ready' };
    }
    if (message.type === 'round') return { type: 'round', ...(await round()) };
    if (message.type === 'stop') {
      await bench?.stop();
      return { type: 'stopped' };
    }
    throw new Error(`store-floor: unknown message ${JSON.stringify(message)}`);
  };
  answer().then(
    (reply) => {
      process.send(reply);
      if (reply.type === 'stopped') process.disconnect();
    },
    (err) => {
      process.send({ type: 'error', message: err instanceof Error ? err.stack : String(err) });
    },
  );
});
