import { AppError } from '../contracts';

/**
 * The format of an embedded store's data, kept in its `meta` database: what a release needs to read
 * it. A release that writes what an older one cannot read moves {@link STORE_FORMAT} on, so that the
 * older release, started again on the data (going back after an upgrade), refuses to open it and
 * says why, rather than failing on each document it cannot decode.
 *
 * | format | written since | what an older release cannot read |
 * |---|---|---|
 * | 1 | the first release | (documents as whole JSON: `J`, `T`) |
 * | 2 | 2026-11-27 | documents in the members format (`M`, see `doc-codec.ts`) |
 * | 3 | 2026-12-06 | documents in the members format with array lengths (`L`), which a release of format 2 cannot read |
 *
 * Stores written before the marker existed hold none: format 1 or 2. The marker is written with the
 * first write of a release that knows it, and only ever moves on: a store of format 2 opens in a
 * release of format 3 as it is, its documents rewritten in the newer format one by one as they are
 * written; once a release of format 3 has written to it, a release of format 2 refuses it.
 */
export const STORE_FORMAT = 3;
export const STORE_FORMAT_KEY = 'format';

/** Refuses a store whose marker names a format newer than this release's. */
export function assertReadableFormat(path: string, stored: unknown): void {
  if (typeof stored === 'number' && stored > STORE_FORMAT)
    throw new AppError(
      'STORE_FORMAT_NEWER',
      `The embedded store at "${path}" was written by a newer release of NAP (store format ${stored}); this release reads formats up to ${STORE_FORMAT}. Start the newer release, or restore the backup made before the upgrade`,
      { details: { path, format: stored, readable: STORE_FORMAT } },
    );
}

/** Whether the marker must be written (moved on to this release's format). */
export function formatBehind(stored: unknown): boolean {
  return typeof stored !== 'number' || stored < STORE_FORMAT;
}

/** A document whose format letter this release does not know: written by a newer release. */
export function unknownDocumentFormat(letter: string): AppError {
  return new AppError(
    'STORE_FORMAT_NEWER',
    `A document of the embedded store is in a format this release does not know ("${letter}"): a newer release of NAP wrote it. Start the newer release, or restore the backup made before the upgrade`,
    { details: { documentFormat: letter, readable: STORE_FORMAT } },
  );
}
