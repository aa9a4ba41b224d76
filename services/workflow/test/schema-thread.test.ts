import { AppError } from '@nap/contracts';
import { UserSchemas } from '../src/engine/input-schemas';
import { SchemaThread } from '../src/engine/schema-thread';

/**
 * Users' JSON Schemas are checked in a thread with a time limit: a pattern that backtracks without
 * end (`^(a+)+$` against 40 a's and a '!', hours of work) stops that thread, not the event loop, and
 * the schema version that overran is refused at once afterwards.
 */

const BACKTRACKING = { type: 'object', properties: { x: { type: 'string', pattern: '^(a+)+$' } } };
const EVIL = `${'a'.repeat(40)}!`;

let thread: SchemaThread;

beforeEach(() => {
  thread = new SchemaThread({ timeoutMs: 300 });
});

afterEach(async () => {
  await thread.stop();
});

it('answers the problems of a value and the value with its defaults', async () => {
  const schema = { type: 'object', properties: { n: { type: 'integer' }, d: { type: 'string', default: 'dflt' } }, required: ['n'] };
  expect(await thread.check('s@1', schema, { n: 'x' }, 'body')).toMatchObject({
    kind: 'checked',
    problems: [{ member: 'body.n' }],
  });
  expect(await thread.check('s@1', schema, { n: 1 }, 'body')).toEqual({ kind: 'checked', problems: [], value: { n: 1, d: 'dflt' } });
  expect(await thread.check('bad@1', { type: 'nonsense' }, {}, 'body')).toMatchObject({ kind: 'unusable' });
});

it('stops a check that backtracks without end while the event loop goes on, and checks the next value in a new thread', async () => {
  // the check of the slow value must not stop this thread's timers
  let ticks = 0;
  const ticker = setInterval(() => (ticks += 1), 20);
  const started = Date.now();
  try {
    expect(await thread.check('evil@1', BACKTRACKING, { x: EVIL }, 'body')).toEqual({ kind: 'timedOut', timeoutMs: 300 });
  } finally {
    clearInterval(ticker);
  }
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(ticks).toBeGreaterThan(3);
  expect(await thread.check('evil@1', BACKTRACKING, { x: 'aaaa' }, 'body')).toEqual({
    kind: 'checked',
    problems: [],
    value: { x: 'aaaa' },
  });
});

it('refuses a schema version that overran at once afterwards, naming its patterns', async () => {
  const schemas = new UserSchemas(thread);
  const unusable = (message: string): AppError => new AppError('UNPROCESSABLE', `The schema of trigger "t" is not usable: ${message}`);
  await expect(schemas.problems('t@1', BACKTRACKING, { x: EVIL }, 'body', unusable)).rejects.toMatchObject({
    code: 'UNPROCESSABLE',
    message: expect.stringContaining('"^(a+)+$"'),
  });
  const again = Date.now();
  await expect(schemas.problems('t@1', BACKTRACKING, { x: 'aaa' }, 'body', unusable)).rejects.toMatchObject({
    code: 'UNPROCESSABLE',
    message: expect.stringContaining('overran its time limit before'),
  });
  expect(Date.now() - again).toBeLessThan(100);
  // a new version of the document is checked again
  expect(await schemas.problems('t@2', BACKTRACKING, { x: 'aaa' }, 'body', unusable)).toEqual({ problems: [], value: { x: 'aaa' } });
});
