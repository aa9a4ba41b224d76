import { AppError, isAppError, isValid, templateRenderFailureSchema } from '@nap/contracts';

/**
 * The error a device template render answers, from the error of the platform's Jinja2 (the studio
 * service's `renderJinjaText`). A render that used variables without a value becomes
 * `DEVICE_TEMPLATE_RENDER_FAILED` naming them (`details.missing`); any other render failure
 * (syntax, a filter's error) the same code with the renderer's message. Timeouts, sandbox refusals
 * and an unavailable renderer keep their own codes.
 */
export function deviceRenderError(templateName: string, err: unknown): unknown {
  if (!isAppError(err) || err.code !== 'TEMPLATE_RENDER_FAILED') return err;
  const missing = isValid(templateRenderFailureSchema, err.details) ? (err.details.missing ?? []) : [];
  if (missing.length > 0) {
    return new AppError(
      'DEVICE_TEMPLATE_RENDER_FAILED',
      `Device template "${templateName}" needs ${missing.map((n) => `"${n}"`).join(', ')}: give ${missing.length === 1 ? 'it' : 'them'} in variables`,
      { cause: err, details: { missing } },
    );
  }
  return new AppError('DEVICE_TEMPLATE_RENDER_FAILED', err.message, { cause: err, details: err.details });
}
