import { isAppError } from '@nap/contracts';
import { compileTransformation, runTransformationPlan } from '../domain/jst';
import { createWorkerRegexRunner } from './regex-worker';

/** A transformation of one step: `RegExp.test` of `^(a+)+$` (which backtracks without end on `aaa…!`) on incoming `s`, answered as `ok`. */
const BACKTRACKING = {
  name: 'backtracking',
  incoming: [{ $id: 's', type: 'string' }],
  outgoing: [{ $id: 'ok' }],
  steps: [
    { id: 1, type: 'method', library: 'RegExp', method: 'test', args: ['^(a+)+$', null] },
    {
      id: 2,
      type: 'assign',
      from: { location: 'incoming', name: 's', ptr: '' },
      to: { location: 'method', name: 1, ptr: '/args/1/value' },
    },
    { id: 3, type: 'assign', from: { location: 'method', name: 1, ptr: '/return' }, to: { location: 'outgoing', name: 'ok', ptr: '' } },
  ],
  functions: [],
};

describe('the regular expression worker of JST runs', () => {
  it('stops a regular expression that backtracks without end in its worker, and goes on with the next run', async () => {
    const worker = createWorkerRegexRunner({ timeoutMs: 300 });
    try {
      const { plan, errors } = compileTransformation(BACKTRACKING);
      if (plan === undefined) throw new Error(`does not compile: ${JSON.stringify(errors)}`);
      const run = (s: string): unknown => runTransformationPlan(plan, { s }, {}, { regex: worker });
      const started = Date.now();
      let failure: unknown;
      try {
        run(`${'a'.repeat(40)}!`);
      } catch (err) {
        failure = err;
      }
      expect(isAppError(failure) && { code: failure.code, message: failure.message }).toMatchObject({
        code: 'TRANSFORMATION_LIMIT_EXCEEDED',
        message: expect.stringMatching(
          /^The run was stopped: the regular expression \/\^\(a\+\)\+\$\/ ran longer than 300 ms and was stopped.*\(at step 1 \(RegExp\.test\)\)$/,
        ),
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(worker.replaced).toBe(1);
      expect(run('aaa')).toEqual({ ok: true });
    } finally {
      await worker.close();
    }
  });
});
