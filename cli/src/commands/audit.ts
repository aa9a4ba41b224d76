import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Context } from '../context';
import { parseDuration } from '../duration';
import { CliError, EXIT, usage } from '../errors';
import type { Query } from '../http/client';
import { table } from '../output/format';
import type { Doc } from '../resources/documents';
import { field, isDoc, itemsOf, str } from '../resources/documents';

/** The filters `nap audit list` and `nap audit export` share. */
export interface AuditRange {
  since?: string;
  until?: string;
}

export interface AuditListOptions extends AuditRange {
  actor?: string;
  operation?: string;
  target?: string;
  outcome?: string;
  limit?: string;
}

/**
 * A time of `--since`/`--until` as the platform reads it (ISO 8601): a duration (`30m`, `2d`) is
 * that long ago; an ISO 8601 date or time is sent in full (`2026-12-01` is its midnight UTC); anything else is
 * refused here, naming the flag.
 */
export function auditTime(text: string, flag: string, now = Date.now()): string {
  if (/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(text.trim())) return new Date(now - parseDuration(text, flag)).toISOString();
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(Date.parse(text)))
    throw usage(`${flag} ${text}: expected an ISO 8601 time (2026-12-01T09:00:00Z) or a duration ago (30m, 1h, 2d)`);
  // a date alone is its midnight UTC, a time without a zone is local, as Date reads them
  return new Date(Date.parse(text)).toISOString();
}

function rangeQuery(opts: AuditRange): Query {
  return {
    since: opts.since === undefined ? undefined : auditTime(opts.since, '--since'),
    until: opts.until === undefined ? undefined : auditTime(opts.until, '--until'),
  };
}

/** What the record acted on, as people name it: `account bench-target`, else its kind and id. */
function targetOf(record: Doc): string | undefined {
  const target = isDoc(record.target) ? record.target : undefined;
  if (target === undefined) return undefined;
  const what = str(target.name) ?? str(target.id);
  return what === undefined ? str(target.kind) : `${String(target.kind ?? '')} ${what}`.trim();
}

function outcomeOf(record: Doc): string {
  const status = field(record, 'outcome.status');
  const code = str(field(record, 'outcome.code'));
  return code === undefined ? String(status ?? '') : `${String(status ?? '')} ${code}`;
}

/** `nap audit list`: GET /audit, newest first, with the audit trail's own filters. */
export async function listAudit(ctx: Context, opts: AuditListOptions): Promise<void> {
  const limit = opts.limit === undefined ? 25 : Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    throw usage(`--limit ${opts.limit ?? ''}: expected a whole number from 1 to 500`);
  const query: Query = {
    limit,
    actor: opts.actor,
    operation: opts.operation,
    targetId: opts.target,
    outcome: opts.outcome,
    ...rangeQuery(opts),
  };
  const res = await ctx.client().request({ method: 'GET', path: '/audit', query });
  const records = itemsOf(res.body);
  const c = ctx.colors;
  ctx.print(res.body, () =>
    records.length === 0
      ? 'No audit record matches.\n'
      : table(
          records,
          [
            { header: 'SEQ', value: (r: Doc) => r.seq },
            { header: 'TIME', value: (r: Doc) => str(r.timestamp)?.replace(/\.\d+Z$/, 'Z') },
            { header: 'ACTOR', value: (r: Doc) => field(r, 'actor.username') },
            { header: 'OPERATION', value: (r: Doc) => r.operation },
            { header: 'TARGET', value: targetOf },
            {
              header: 'OUTCOME',
              value: outcomeOf,
              color: (text: string) => (Number(text.split(' ')[0]) >= 400 ? c.red(text) : c.green(text)),
            },
          ],
          c,
        ),
  );
}

/** `nap audit verify`: GET /audit/verify; exit 1 when the chain does not hold. */
export async function verifyAudit(ctx: Context): Promise<void> {
  const res = await ctx.client().request({ method: 'GET', path: '/audit/verify' });
  const answer = isDoc(res.body) ? res.body : {};
  const checked = Number(answer.checked ?? 0);
  const valid = answer.valid === true;
  const c = ctx.colors;
  ctx.print(res.body, () =>
    valid
      ? `${c.green('the audit chain holds')}: ${checked} record${checked === 1 ? '' : 's'} checked${typeof answer.from === 'number' && answer.from > 1 ? `, from seq ${answer.from} (retention removed the older ones)` : ''}`
      : `${c.red('the audit chain is broken')} at seq ${String(answer.firstBroken ?? '?')}: ${String(answer.reason ?? 'no reason given')} (${checked} record${checked === 1 ? '' : 's'} checked)`,
  );
  if (!valid) throw new CliError(`the audit chain does not hold from seq ${String(answer.firstBroken ?? '?')}`, EXIT.FAILED);
}

/**
 * `nap audit export`: GET /audit/export, one record a line (NDJSON), oldest first, to stdout or a
 * file, as the platform streams it; `--after-seq` resumes an export that was cut.
 */
export async function exportAudit(ctx: Context, opts: AuditRange & { afterSeq?: string; file?: string }): Promise<void> {
  if (opts.afterSeq !== undefined && !/^\d+$/.test(opts.afterSeq))
    throw usage(`--after-seq ${opts.afterSeq}: expected a seq (a whole number)`);
  const client = ctx.client();
  const res = await client.stream({
    method: 'GET',
    path: '/audit/export',
    query: { ...rangeQuery(opts), afterSeq: opts.afterSeq },
  });
  const toFile = opts.file !== undefined && opts.file !== '-';
  let out: Writable = ctx.io.stdout;
  if (toFile) {
    try {
      out = await openOutput(opts.file as string);
    } catch (err) {
      await res.body?.cancel().catch(() => undefined);
      throw err;
    }
  }
  let lines = 0;
  // the line under way, and the last whole one: its seq resumes an export that was cut
  let partial = '';
  let last: string | undefined;
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body ?? []) {
      const bytes = chunk as Uint8Array;
      const whole = (partial + decoder.decode(bytes, { stream: true })).split('\n');
      partial = whole.pop() ?? '';
      if (whole.length > 0) {
        lines += whole.length;
        last = whole[whole.length - 1];
      }
      if (!out.write(bytes)) await once(out, 'drain');
    }
  } catch (err) {
    const resume = seqOf(last);
    throw new CliError(
      `the export from ${client.url} was cut after ${lines} records (${(err as Error).message})${resume === undefined ? '' : `; resume with --after-seq ${resume}`}`,
      EXIT.UNREACHABLE,
    );
  } finally {
    if (toFile) {
      out.end();
      await once(out, 'close');
    }
  }
  if (toFile) ctx.note(`${lines} audit record${lines === 1 ? '' : 's'} written to ${opts.file}`);
}

/** The export's file, opened (and emptied) once the platform answered: a path that cannot be written is said plainly (exit 4). */
async function openOutput(file: string): Promise<WriteStream> {
  const out = createWriteStream(file);
  try {
    await once(out, 'open');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usage(`cannot write ${file}: ${code === 'ENOENT' ? 'no such folder' : (code ?? (err as Error).message)}`);
  }
  return out;
}

/** The seq of a record's line, when it is one. */
function seqOf(line: string | undefined): string | undefined {
  if (line === undefined) return undefined;
  try {
    const seq = (JSON.parse(line) as { seq?: unknown }).seq;
    return typeof seq === 'number' ? String(seq) : undefined;
  } catch {
    return undefined;
  }
}
