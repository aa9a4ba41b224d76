import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { WriteStream } from 'node:fs';
import type { Doc, ListedIndex } from '@nap/store';
import { CollectionDigest, docToLine, lineToDoc } from './doc-lines';

/**
 * A backup file: gzip-compressed lines of JSON, read and written as a stream.
 *
 * ```
 * {"nap-data":1,"createdAt":…,"release":…,"source":…,"databases":[…]}      header
 * {"collection":{"db":"nap_workflow","name":"jobs","indexes":[…]}}         a collection begins
 * {"_id":"…",…}                                                            its documents, Extended JSON
 * {"end":{"db":"nap_workflow","name":"jobs","count":2,"digest":"…"}}       its count and digest
 * {"file":{"path":"playbooks/site.yml","mode":420,"sha256":"…","data":"base64…"}}
 * {"done":{"collections":38,"documents":1204,"files":3}}                  the file is whole
 * ```
 *
 * A document line is the document itself (`zcat | grep` finds it; a collection's lines are what
 * `mongoimport` reads). A file without its `done` line, or whose counts or digests disagree with
 * its documents, is refused as a whole.
 */

export const FORMAT_VERSION = 1;

export interface BackupHeader {
  createdAt: string;
  /** The NAP release that wrote it. */
  release: string;
  /** Where its data came from (a MongoDB URL without password). */
  source: string;
  databases: string[];
}

/** What a backup, or a location read in order, is made of. */
export type Item =
  | { kind: 'collection'; db: string; name: string; indexes: ListedIndex[] }
  /** Documents of the collection begun last; `lines` are their lines as {@link docToLine} writes them, when the reader made them. */
  | { kind: 'docs'; docs: Doc[]; lines?: string[] }
  | { kind: 'end'; db: string; name: string; count: number; digest: string }
  | { kind: 'file'; path: string; mode: number; data: Buffer };

export interface Totals {
  collections: number;
  documents: number;
  files: number;
}

/** A backup that cannot be read, or is not whole. */
export class BackupFileError extends Error {}

/** Writes a backup to `file`: to `<file>.partial` first, renamed once complete and on disk. */
export class BackupWriter {
  private readonly gzip = createGzip({ level: 6 });
  private readonly out: WriteStream;
  /** The gzip stream into the file; rejects on a write error (a full disk), which also ends {@link line}'s waits. */
  private readonly piped: Promise<void>;
  private readonly partial: string;
  private readonly totals: Totals = { collections: 0, documents: 0, files: 0 };

  constructor(
    private readonly file: string,
    header: BackupHeader,
  ) {
    this.partial = `${file}.partial`;
    this.out = createWriteStream(this.partial, { flags: 'w', mode: 0o600 });
    this.piped = pipeline(this.gzip, this.out);
    this.piped.catch(() => undefined);
    void this.line(JSON.stringify({ 'nap-data': FORMAT_VERSION, ...header }));
  }

  private async line(text: string): Promise<void> {
    if (!this.gzip.write(`${text}\n`)) await once(this.gzip, 'drain');
  }

  async write(item: Item): Promise<void> {
    switch (item.kind) {
      case 'collection':
        this.totals.collections += 1;
        return this.line(JSON.stringify({ collection: { db: item.db, name: item.name, indexes: item.indexes } }));
      case 'docs':
        for (let i = 0; i < item.docs.length; i += 1) await this.line(item.lines?.[i] ?? docToLine(item.docs[i] as Doc, 'a document'));
        this.totals.documents += item.docs.length;
        return;
      case 'end':
        return this.line(JSON.stringify({ end: { db: item.db, name: item.name, count: item.count, digest: item.digest } }));
      case 'file':
        this.totals.files += 1;
        return this.line(
          JSON.stringify({
            file: {
              path: item.path,
              mode: item.mode,
              sha256: createHash('sha256').update(item.data).digest('hex'),
              data: item.data.toString('base64'),
            },
          }),
        );
    }
  }

  /** Writes the last line, syncs the file and gives it its name. */
  async finish(): Promise<Totals> {
    this.gzip.end(`${JSON.stringify({ done: this.totals })}\n`);
    await this.piped;
    const handle = await open(this.partial, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(this.partial, this.file);
    return { ...this.totals };
  }

  /** Drops what was written (a backup that failed leaves no file behind). */
  async abort(): Promise<void> {
    this.gzip.destroy();
    await this.piped.catch(() => undefined);
    await rm(this.partial, { force: true });
  }
}

function parseLine(text: string, lineNo: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BackupFileError(`line ${lineNo} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BackupFileError(`line ${lineNo} is not an object`);
  return value as Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads the header line of a backup alone. */
export async function readBackupHeader(file: string): Promise<BackupHeader> {
  const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  try {
    for await (const text of lines) return headerOf(parseLine(text, 1));
  } catch (err) {
    if (err instanceof BackupFileError) throw err;
    throw new BackupFileError(`${file} is not a backup of NAP (${(err as Error).message})`);
  } finally {
    lines.close();
  }
  throw new BackupFileError(`${file} is empty`);
}

function headerOf(line: Record<string, unknown>): BackupHeader {
  if (line['nap-data'] === undefined) throw new BackupFileError('the first line is not the header of a backup of NAP');
  if (line['nap-data'] !== FORMAT_VERSION)
    throw new BackupFileError(`the backup's format is version ${String(line['nap-data'])}; this release reads version ${FORMAT_VERSION}`);
  const { createdAt, release, source, databases } = line;
  if (typeof createdAt !== 'string' || typeof release !== 'string' || typeof source !== 'string' || !Array.isArray(databases))
    throw new BackupFileError('the header lacks createdAt, release, source or databases');
  return { createdAt, release, source, databases: databases.map(String) };
}

/**
 * The items of a backup, in order, each collection's documents in batches of at most `batch`; the
 * header first. Checks as it reads: every collection's count and digest, every file's SHA-256, and
 * the totals of the last line. Throws {@link BackupFileError} naming the line at the first problem,
 * so a caller that must not write from a damaged backup reads it once to the end first.
 */
export async function* readBackup(file: string, batch = 500): AsyncGenerator<Item | { kind: 'header'; header: BackupHeader }> {
  const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  let lineNo = 0;
  let open: { db: string; name: string; digest: CollectionDigest } | undefined;
  let docs: Doc[] = [];
  const totals: Totals = { collections: 0, documents: 0, files: 0 };
  let done = false;
  try {
    for await (const text of lines) {
      lineNo += 1;
      if (done) throw new BackupFileError(`line ${lineNo} follows the last line`);
      if (lineNo === 1) {
        yield { kind: 'header', header: headerOf(parseLine(text, lineNo)) };
        continue;
      }
      if (open !== undefined && text.startsWith('{"_id"')) {
        let doc: Doc;
        try {
          doc = lineToDoc(text);
        } catch (err) {
          throw new BackupFileError(`line ${lineNo}: ${(err as Error).message}`);
        }
        open.digest.addLine(text);
        docs.push(doc);
        if (docs.length >= batch) {
          yield { kind: 'docs', docs };
          docs = [];
        }
        continue;
      }
      const line = parseLine(text, lineNo);
      if (open !== undefined) {
        if (!isObject(line.end))
          throw new BackupFileError(`line ${lineNo}: the collection ${open.db}.${open.name} is not closed by its count`);
        const { db, name, count, digest } = line.end;
        if (db !== open.db || name !== open.name)
          throw new BackupFileError(`line ${lineNo} closes a collection other than ${open.db}.${open.name}`);
        if (count !== open.digest.count || digest !== open.digest.hex())
          throw new BackupFileError(
            `line ${lineNo}: ${open.db}.${open.name} should hold ${String(count)} documents of digest ${String(digest)}; it holds ${open.digest.count} of digest ${open.digest.hex()}`,
          );
        if (docs.length > 0) yield { kind: 'docs', docs };
        docs = [];
        totals.documents += open.digest.count;
        yield { kind: 'end', db: open.db, name: open.name, count: open.digest.count, digest: open.digest.hex() };
        open = undefined;
      } else if (isObject(line.collection)) {
        const { db, name, indexes } = line.collection;
        if (typeof db !== 'string' || typeof name !== 'string' || !Array.isArray(indexes))
          throw new BackupFileError(`line ${lineNo}: a collection needs db, name and indexes`);
        totals.collections += 1;
        open = { db, name, digest: new CollectionDigest() };
        yield { kind: 'collection', db, name, indexes: indexes as ListedIndex[] };
      } else if (isObject(line.file)) {
        const { path, mode, sha256, data } = line.file;
        if (typeof path !== 'string' || typeof mode !== 'number' || typeof data !== 'string' || typeof sha256 !== 'string')
          throw new BackupFileError(`line ${lineNo}: a file needs path, mode, sha256 and data`);
        if (path.split('/').some((part) => part === '..' || part === '') || path.startsWith('/'))
          throw new BackupFileError(`line ${lineNo}: the file path ${path} leaves its directory`);
        const bytes = Buffer.from(data, 'base64');
        if (createHash('sha256').update(bytes).digest('hex') !== sha256)
          throw new BackupFileError(`line ${lineNo}: the file ${path} is damaged`);
        totals.files += 1;
        yield { kind: 'file', path, mode: mode & 0o777, data: bytes };
      } else if (isObject(line.done)) {
        const { collections, documents, files } = line.done;
        if (collections !== totals.collections || documents !== totals.documents || files !== totals.files)
          throw new BackupFileError(
            `the last line counts ${String(collections)} collections, ${String(documents)} documents and ${String(files)} files; the backup holds ${totals.collections}, ${totals.documents} and ${totals.files}`,
          );
        done = true;
      } else {
        throw new BackupFileError(`line ${lineNo} is not a part of a backup`);
      }
    }
  } catch (err) {
    if (err instanceof BackupFileError) throw err;
    // gzip's own checks: a truncated or damaged file
    throw new BackupFileError(`the file cannot be read after line ${lineNo}: ${(err as Error).message}`);
  } finally {
    lines.close();
  }
  if (lineNo === 0) throw new BackupFileError('the file is empty');
  if (open !== undefined) throw new BackupFileError(`the file ends inside ${open.db}.${open.name}: it was cut short`);
  if (!done) throw new BackupFileError('the file ends before its last line: it was cut short');
}
