import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { AppError, ERROR_CODES, hasCode, isRetryable, renderErrorsMarkdown } from './errors';

describe('error table', () => {
  it('gives every code an HTTP status, a flag and a description', () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.status).toBeLessThan(600);
      expect(entry.description.length).toBeGreaterThan(10);
    }
  });

  it('takes the status from the table and classifies by code', () => {
    const e = new AppError('TIMEOUT', 'too late');
    expect(e.status).toBe(504);
    expect(hasCode(e, 'TIMEOUT')).toBe(true);
    expect(isRetryable(e)).toBe(true);
    expect(isRetryable(new AppError('VALIDATION_FAILED', 'bad'))).toBe(false);
    expect(e.toBody('r1')).toEqual({ status: 'error', code: 'TIMEOUT', message: 'too late', requestId: 'r1' });
  });
});

describe('docs/errors.md', () => {
  it('matches the table', () => {
    const file = path.join(__dirname, '../../docs/errors.md');
    const expected = renderErrorsMarkdown();
    if (process.env.UPDATE_DOCS === '1') writeFileSync(file, expected);
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '(missing: run UPDATE_DOCS=1 npx jest contracts/src/errors.test.ts)').toBe(
      expected,
    );
  });
});
