import type { ServerResponse } from 'node:http';
import { AppError, HEADERS } from '@nap/contracts';
import type { RawResult } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { errorMessage } from '@nap/util';

/** Query members, from the `nap-continue-with` header of a reply, that ask for the next part of a file; undefined on the last part. */
export function continuationOf(result: RawResult): Record<string, string> | undefined {
  const header = result.headers[HEADERS.continueWith];
  if (header === undefined || result.status !== 200) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    throw new AppError('INTERNAL', `The service answered an unreadable ${HEADERS.continueWith} header`);
  }
  if (typeof parsed !== 'object' || parsed === null || Object.values(parsed).some((v) => typeof v !== 'string'))
    throw new AppError('INTERNAL', `The service answered a ${HEADERS.continueWith} header that is not an object of strings`);
  return parsed as Record<string, string>;
}

/** Resolves once the response can take more, or once the client left. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes a file that the owning service answers in parts (a job archive: each bus reply carries one
 * part and, but for the last, the query that asks for the next): the first part's status and headers,
 * then each part as it comes, as one chunked HTTP body. Parts are asked for one at a time and only
 * once the client took the previous one (backpressure), and no more once the client left. A part
 * that fails after the first was sent cannot become an error answer any more: the connection is cut
 * (the client sees a truncated body, which gzip's own check reports) and the failure is logged.
 */
export async function writeContinuedReply(
  res: ServerResponse,
  first: RawResult,
  firstNext: Record<string, string>,
  askNext: (query: Record<string, string>) => Promise<RawResult>,
  log: Logger,
): Promise<void> {
  res.statusCode = first.status;
  res.setHeader('content-type', first.headers[HEADERS.contentType] ?? 'application/octet-stream');
  const disposition = first.headers[HEADERS.contentDisposition];
  if (disposition !== undefined) res.setHeader('content-disposition', disposition);
  let part = first;
  let next: Record<string, string> | undefined = firstNext;
  let parts = 0;
  try {
    for (;;) {
      parts += 1;
      if (!res.write(Buffer.from(part.data.buffer, part.data.byteOffset, part.data.byteLength))) await drained(res);
      if (next === undefined || res.destroyed) break;
      part = await askNext(next);
      if (part.status !== 200) throw new AppError('INTERNAL', `Part ${parts + 1} of the file was answered with status ${part.status}`);
      next = continuationOf(part);
    }
    res.end();
  } catch (err) {
    log.error({ err, parts }, `A file answered in parts was cut after ${parts} part(s): ${errorMessage(err)}`);
    res.destroy(err instanceof Error ? err : undefined);
  }
}
