import { isAppError } from '@nap/contracts';
import type { AuditSink } from '@nap/bus';
import type { ImportResult, ImportResultItem } from '@nap/contracts';

/** Where an import tells the audit trail what it stored: the request's context and the kind of document (`workflow`, `form`). */
export interface ImportAudit {
  ctx: AuditSink;
  kind: string;
}

/** What saving one item of an import gives: the stored document and members to add to its result item. */
export interface Saved<C> {
  created: C;
  extra?: Record<string, unknown>;
}

/**
 * Runs `save` for each item in order and reports per item, as the spec's import routes do: a refused
 * item has `success: false`, the reason in `message` (and its `details` under `detailsKey`), and
 * `created: null`; the answer's `status` stays `success` and its message says how many were
 * imported. An error that is not an `AppError` (a bug) is not swallowed. Each document stored is
 * recorded in the audit trail on its own (its kind, id and name), so that the records of a
 * workflow show who imported it.
 */
export async function importEach<C extends { name: string; _id?: unknown }>(
  items: readonly Record<string, unknown>[],
  label: { one: string; many: string },
  audit: ImportAudit,
  save: (item: Record<string, unknown>, index: number) => Promise<Saved<C>>,
  detailsKey = 'problems',
): Promise<ImportResult<Record<string, unknown>, C>> {
  const imported: ImportResultItem<Record<string, unknown>, C>[] = [];
  for (const [index, item] of items.entries()) {
    try {
      const saved = await save(item, index);
      imported.push({
        success: true,
        message: `Imported ${label.one} "${saved.created.name}"`,
        original: item,
        created: saved.created,
        ...(saved.extra ?? {}),
      });
      const id = saved.created._id;
      audit.ctx.audit({
        each: [{ target: { kind: audit.kind, ...(typeof id === 'string' ? { id } : {}), name: saved.created.name } }],
      });
    } catch (err) {
      if (!isAppError(err)) throw err;
      const failed: ImportResultItem<Record<string, unknown>, C> & Record<string, unknown> = {
        success: false,
        message: err.message,
        original: item,
        created: null,
      };
      if (err.details !== undefined) failed[detailsKey] = err.details;
      imported.push(failed);
    }
  }
  const count = imported.filter((i) => i.success).length;
  return { status: 'success', message: `Imported ${count} of ${items.length} ${items.length === 1 ? label.one : label.many}`, imported };
}
