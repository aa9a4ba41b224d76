import { parentPort } from 'node:worker_threads';
import { validateAgainst } from '@nap/contracts';
import type { JsonSchema } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import type { SchemaThreadAnswer, SchemaThreadRequest } from './schema-thread';

/**
 * The thread that checks values against JSON Schemas written by users (see schema-thread.ts): a
 * `pattern` that backtracks without end stops this thread, which the service terminates, never its
 * event loop. Each schema is compiled once per key; the value comes back with the defaults its
 * schema gives filled in.
 */

const port = parentPort;
if (port === null) throw new Error('schema-thread-main runs as a worker thread');
const schemas = new Map<string, JsonSchema>();

port.on('message', (request: SchemaThreadRequest) => {
  let answer: SchemaThreadAnswer;
  try {
    let schema = schemas.get(request.key);
    if (schema === undefined) {
      schema = request.schema;
      schemas.set(request.key, schema);
    }
    const problems = validateAgainst(schema, request.value, request.label);
    answer = { id: request.id, ok: true, problems, value: request.value };
  } catch (err) {
    schemas.delete(request.key);
    answer = { id: request.id, ok: false, error: errorMessage(err) };
  }
  port.postMessage(answer);
});
port.postMessage({ id: 0, ok: true, problems: [], value: null } satisfies SchemaThreadAnswer);
