import type { Handler } from '@nap/bus';
import { compileTransformation, migrateTransformation } from '../domain/jst';
import type { StudioDeps } from './deps';

/** `POST /transformations/validate`: every problem of a document, without saving it. */
export function validateTransformation(_deps: StudioDeps): Handler<'studio.validateTransformation'> {
  return async (input) => {
    const { doc, migrated } = migrateTransformation(input.body);
    const { errors, warnings } = compileTransformation(doc);
    const notes = migrated.map((m) => ({
      code: 'MIGRATED_THIS_ARG',
      message: `function "${m.function}" reads thisArg, as older releases wrote it; it will read ${m.to}`,
      path: '/functions',
    }));
    return { isValid: errors.length === 0, errors, warnings: [...notes, ...warnings] };
  };
}
