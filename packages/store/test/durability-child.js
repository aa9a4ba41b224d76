'use strict';
// Child process of durability.int.test.ts. Opens the embedded store from the COMPILED package
// (dist/, built by `npm run build`), then writes without end: documents under a unique index and
// a counter, a few writes in flight at a time, printing one line per acknowledged write
// ("doc <id>" / "inc <value>"). The parent kills it with SIGKILL while it writes.
const { createEmbeddedStore } = require('../dist/index.js');

async function main() {
  const path = process.argv[2];
  if (!path) throw new Error('usage: durability-child.js <store directory>');
  const store = createEmbeddedStore({ path });
  const docs = store.collection('docs');
  const counters = store.collection('counters');
  await docs.createIndexes([{ keys: { seq: 1 }, unique: true }]);
  process.stdout.write('ready\n');
  const payload = 'p'.repeat(1000);
  for (let round = 0; ; round++) {
    const writes = [];
    for (let j = 0; j < 4; j++) {
      const seq = round * 4 + j;
      writes.push(docs.insertOne({ _id: `d${seq}`, seq, payload }).then((doc) => process.stdout.write(`doc ${doc._id}\n`)));
    }
    writes.push(
      counters
        .findOneAndUpdate({ _id: 'writes' }, { $inc: { n: 1 } }, { upsert: true, returnDocument: 'after' })
        .then((doc) => process.stdout.write(`inc ${doc ? doc.n : 0}\n`)),
    );
    await Promise.all(writes);
  }
}

main().catch((e) => {
  process.stderr.write(`${(e && e.stack) || e}\n`);
  process.exit(1);
});
