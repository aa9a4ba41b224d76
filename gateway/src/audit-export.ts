import type { ServerResponse } from 'node:http';
import type { BusClient } from '@nap/bus';
import type { Authenticator } from './auth/authenticator';
import type { ClientAddress } from './client-address';
import { authenticate } from './authenticate';
import { authorize } from './authorize';
import type { EventStreamHandler } from './sse';
import { validate } from './validate';

/** Records asked of the admin service per page. */
const PAGE = 500;

/**
 * `GET /audit/export` (`admin.exportAudit`), answered by the gateway itself: a bus reply is one
 * message (NATS keeps them under 1 MiB), so the gateway asks the admin service for one page of
 * newline-delimited JSON at a time, after the seq of the last line it wrote, and streams each page's
 * bytes to the client as they come (waiting for the client to drain), until a page is empty. The
 * first page is asked before anything is written, so that its errors are answered as JSON; a client
 * whose export was cut resumes with `afterSeq`.
 */
export function createAuditExport(client: BusClient, authenticator: Authenticator, clientAddress: ClientAddress): EventStreamHandler {
  return async (op, params, req, res, query, requestId, locals) => {
    const caller = await authenticate(authenticator, req, query, clientAddress, locals);
    authorize(op, caller, req.method);
    delete query.token;
    validate(op, { params, query, body: undefined });
    const ask = async (afterSeq: number) =>
      (await client.callRaw(op, { query: { ...query, afterSeq, limit: query.limit ?? PAGE } }, { caller, requestId, validated: true }))
        .data;
    let page = await ask(typeof query.afterSeq === 'number' ? query.afterSeq : 0);
    res.statusCode = 200;
    res.setHeader('content-type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('content-disposition', 'attachment; filename="audit.ndjson"');
    res.setHeader('x-accel-buffering', 'no');
    res.setHeader('cache-control', 'no-store');
    let gone = false;
    req.on('close', () => (gone = true));
    while (page.length > 0 && !gone) {
      await write(res, page);
      const afterSeq = lastSeq(page);
      if (afterSeq === undefined) break;
      page = await ask(afterSeq);
    }
    res.end();
  };
}

function write(res: ServerResponse, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error | null) => (err ? reject(err) : resolve());
    if (res.write(bytes)) {
      done();
      return;
    }
    // a client that leaves never drains
    const settle = () => {
      res.off('drain', settle);
      res.off('close', settle);
      done();
    };
    res.once('drain', settle);
    res.once('close', settle);
  });
}

/** The seq of the last line of a page (each line a record). */
function lastSeq(page: Uint8Array): number | undefined {
  const text = Buffer.from(page.buffer, page.byteOffset, page.byteLength).toString('utf8').trimEnd();
  const line = text.slice(text.lastIndexOf('\n') + 1);
  try {
    const seq = (JSON.parse(line) as { seq?: unknown }).seq;
    return typeof seq === 'number' ? seq : undefined;
  } catch {
    return undefined;
  }
}
