import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Colors } from 'picocolors/types';
import type { Context } from '../context';
import { parseMoment } from '../duration';
import { CliError, EXIT, usage } from '../errors';
import { pathOf } from '../http/client';
import type { Query } from '../http/client';
import { table } from '../output/format';
import { terminalText } from '../output/terminal';
import type { Doc } from '../resources/documents';
import { field, isDoc, itemsOf, str } from '../resources/documents';
import { limitOption } from '../limit';

/** The filters `nap audit list` and `nap audit export` share. */
export interface AuditRange {
  since?: string;
  until?: string;
}

export interface AuditListOptions extends AuditRange {
  actor?: string;
  operation?: string;
  target?: string;
  targetName?: string;
  kind?: string;
  outcome?: string;
  limit?: string;
}

/**
 * A time of `--since`/`--until` as the platform reads it (ISO 8601): a duration (`30m`, `2d`) is
 * that long ago; an ISO 8601 date or time is sent in full (`2026-12-01` is its midnight UTC); anything else is
 * refused here, naming the flag.
 */
export function auditTime(text: string, flag: string, now = Date.now()): string {
  return new Date(parseMoment(text, flag, now)).toISOString();
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
  const limit = limitOption(opts.limit, 25, 500);
  const query: Query = {
    limit,
    actor: opts.actor,
    operation: opts.operation,
    targetId: opts.target,
    'equals[target.name]': opts.targetName,
    'equals[target.kind]': opts.kind,
    outcome: opts.outcome,
    ...rangeQuery(opts),
  };
  const res = await ctx.client().request({ method: 'GET', path: '/audit', query });
  const records = itemsOf(res.body);
  const c = ctx.colors;
  // -o json: the array of the records, as every list prints
  ctx.print(records, () =>
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
          ctx.width,
        ),
  );
}

/** How an actor proved who it was, as people say it. */
const AUTH_TEXT: Record<string, string> = {
  bearer: 'Bearer token',
  cookie: 'console session (cookie)',
  query: 'token in the URL',
  basic: 'Basic credentials',
  password: 'username and password',
  oauth: 'client credentials (OAuth)',
  sso: 'identity provider (SSO)',
  none: 'no credentials',
};

/** A value of a change on one line: text as it is, anything else as compact JSON. */
function changeValue(value: unknown): string {
  return typeof value === 'string' && value !== '' ? value : JSON.stringify(value);
}

/** A change too large to keep holds the SHA-256 digests of its values: said so, so that nobody reads them as the values. */
function digestNote(changes: Doc[], c: Colors): string {
  return changes.some((ch) => ch.digest === true) ? c.dim('values marked digest were too large to keep: they are SHA-256 digests\n') : '';
}

/** The changes of a record as rows of member, before and after, secrets and digests said plainly. */
function changeRows(changes: Doc[], c: Colors): string {
  return table(
    changes,
    [
      { header: 'MEMBER', value: (ch: Doc) => (ch.digest === true ? `${String(ch.member)} (digest)` : ch.member) },
      {
        header: 'BEFORE',
        value: (ch: Doc) => (ch.secret === true ? c.dim('(secret)') : 'before' in ch ? changeValue(ch.before) : c.dim('(added)')),
      },
      {
        header: 'AFTER',
        value: (ch: Doc) =>
          ch.secret === true ? c.dim('(changed; a secret is never recorded)') : 'after' in ch ? changeValue(ch.after) : c.dim('(removed)'),
      },
    ],
    c,
  );
}

/** One record for people: who, what, to what, how it ended, from where, what changed, and its place in the chain. */
export function renderAuditRecord(record: Doc, c: Colors): string {
  const actor = isDoc(record.actor) ? record.actor : {};
  const target = isDoc(record.target) ? record.target : undefined;
  const source = isDoc(record.source) ? record.source : {};
  const failed = Number(field(record, 'outcome.status')) >= 400;
  const who = [
    str(actor.username) ?? '?',
    actor.kind !== undefined && actor.kind !== 'account' ? `(${String(actor.kind)})` : undefined,
    str(actor.onBehalfOf) === undefined ? undefined : `on behalf of ${String(actor.onBehalfOf)}`,
    str(actor.auth) === undefined ? undefined : `by ${AUTH_TEXT[String(actor.auth)] ?? String(actor.auth)}`,
    str(actor.accountId) === undefined ? undefined : c.dim(`account ${String(actor.accountId)}`),
  ];
  const rows: [string, string | undefined][] = [
    ['Time', str(record.timestamp)],
    ['Actor', who.filter((part) => part !== undefined).join(' ')],
    ['Operation', `${String(record.operation ?? '')}  ${[str(record.method), str(record.route)].filter(Boolean).join(' ')}`.trimEnd()],
    [
      'Target',
      target === undefined
        ? undefined
        : [str(target.kind), str(target.name), str(target.id) === undefined ? undefined : c.dim(`id ${String(target.id)}`)]
            .filter(Boolean)
            .join(' '),
    ],
    ['Outcome', failed ? c.red(outcomeOf(record)) : c.green(outcomeOf(record))],
    ['Request', str(record.requestId)],
    ['Source', [str(source.address), str(source.userAgent)].filter(Boolean).join('  ') || undefined],
    ['Hash', str(record.hash)],
    ['Previous', str(record.prevHash)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const head = `${c.bold(`Record ${String(record.seq ?? '?')}`)}\n`;
  const lines = rows
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([label, value]) => `${c.bold(label.padEnd(width))}  ${String(value)}`);
  const changes = Array.isArray(record.changes) ? record.changes.filter(isDoc) : [];
  const changed =
    changes.length === 0 ? '' : `\n${c.bold(`Changes (${changes.length})`)}\n${changeRows(changes, c)}${digestNote(changes, c)}`;
  return `${head}${lines.join('\n')}\n${changed}`;
}

/** `nap audit describe SEQ`: GET /audit/:seq, one record with what changed. */
export async function describeAudit(ctx: Context, seq: string): Promise<void> {
  if (!/^[1-9]\d{0,14}$/.test(seq)) throw usage(`${seq}: expected the seq of a record (a whole number from 1, as nap audit list shows it)`);
  const res = await ctx.client().request({ method: 'GET', path: pathOf('/audit/:seq', { seq }) });
  ctx.print(res.body, () => renderAuditRecord(isDoc(res.body) ? res.body : {}, ctx.colors));
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
  // to a terminal, the records' characters it would act on as JSON's escapes (the same records); to a pipe or a file, byte for byte
  const onTerminal = out === ctx.io.stdout && ctx.io.stdout.isTTY === true ? new TextDecoder() : undefined;
  try {
    for await (const chunk of res.body ?? []) {
      const bytes = chunk as Uint8Array;
      const whole = (partial + decoder.decode(bytes, { stream: true })).split('\n');
      partial = whole.pop() ?? '';
      if (whole.length > 0) {
        lines += whole.length;
        last = whole[whole.length - 1];
      }
      if (!out.write(onTerminal === undefined ? bytes : terminalText(onTerminal.decode(bytes, { stream: true }), false)))
        await once(out, 'drain');
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
