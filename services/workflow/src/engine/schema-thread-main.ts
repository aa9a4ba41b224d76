import { parentPort } from 'node:worker_threads';
import { validateAgainst } from '@nap/contracts';
import type { JsonSchema } from '@nap/contracts';
import type { WorkerPoolRequest } from '@nap/runtime';
import { errorMessage } from '@nap/util';
import type { SchemaThreadAnswer, SchemaThreadRequest } from './schema-thread';

/**
 * The thread that checks values against JSON Schemas written by users (see schema-thread.ts): a
 * `pattern` that backtracks without end stops this thread, which the service terminates, never its
 * event loop. Each schema is compiled once per key; the value comes back with the defaults its
 * schema gives filled in. It imports only types of @nap/runtime: the thread starts without loading it.
 */

/** Schemas one thread compiles before it asks to be replaced: its validator keeps every schema it compiled. */
const SCHEMAS_PER_THREAD = 1_000;

const port = parentPort;
if (port === null) throw new Error('schema-thread-main runs as a worker thread');
const schemas = new Map<string, JsonSchema>();
/** Keys compiled by this thread, kept or not. */
let compiled = 0;

port.on('message', ({ id, job: request }: WorkerPoolRequest<SchemaThreadRequest>) => {
  let answer: SchemaThreadAnswer;
  try {
    let schema = schemas.get(request.key);
    if (schema === undefined) {
      schema = request.schema;
      schemas.set(request.key, schema);
      compiled += 1;
    }
    const problems = validateAgainst(schema, request.value, request.label);
    answer = { id, ok: true, value: { problems, value: request.value } };
  } catch (err) {
    schemas.delete(request.key);
    answer = { id, ok: false, error: errorMessage(err) };
  }
  if (compiled > SCHEMAS_PER_THREAD) answer.retire = true;
  port.postMessage(answer);
});
// The first check of a thread compiles the validator's own code paths, many times slower than any
// later one (a fifth of a second on a loaded machine): done before the thread says it is ready, it
// does not count against the first user's check, whose clock starts then.
validateAgainst(
  { type: 'object', properties: { s: { type: 'string', pattern: '^a+$', default: 'a' }, n: { type: 'integer' } }, required: ['n'] },
  { n: 1 },
  'warm-up',
);
port.postMessage({ ready: true } satisfies SchemaThreadAnswer);
