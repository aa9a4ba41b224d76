import { AppError, ERROR_CODES, hasCode, isRetryable } from './errors';

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
