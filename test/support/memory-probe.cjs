// Loaded with `--require` into a NAP process started with an IPC channel (and `--expose-gc`) by the
// benchmarks and the memory soak test, never by the platform itself: it answers on the IPC channel
// with the process's memory after a full garbage collection, writes heap snapshots on request, and
// stops the process when the one that started it is gone (no platform outlives a killed benchmark).
//   { probe: 'nap', id, op: 'memory' }             -> { probe: 'nap', id, memory: process.memoryUsage(), heap: v8.getHeapStatistics() }
//   { probe: 'nap', id, op: 'snapshot', file }     -> { probe: 'nap', id, file }
'use strict';
const v8 = require('node:v8');

function collect() {
  if (typeof global.gc !== 'function') return false;
  // twice: the first pass may only queue finalizers and weak callbacks that free more on the second
  global.gc();
  global.gc();
  return true;
}

if (typeof process.send === 'function') {
  process.on('message', (msg) => {
    if (msg === null || typeof msg !== 'object' || msg.probe !== 'nap') return;
    const reply = (body) => process.send({ probe: 'nap', id: msg.id, ...body });
    try {
      if (msg.op === 'memory') {
        const collected = collect();
        reply({ collected, memory: process.memoryUsage(), heap: v8.getHeapStatistics() });
      } else if (msg.op === 'snapshot') {
        collect();
        reply({ file: v8.writeHeapSnapshot(msg.file) });
      } else {
        reply({ error: `unknown probe operation ${String(msg.op)}` });
      }
    } catch (err) {
      reply({ error: err instanceof Error ? err.message : String(err) });
    }
  });
  // the channel must not keep the process alive once the platform stopped
  process.channel?.unref();
  // the benchmark or test that started the platform is gone (killed): the platform stops too
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
