import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { RELEASE, serviceDatabase } from '@nap/contracts';
import type { ServiceName } from '@nap/contracts';
import { createSecretBox } from '@nap/runtime';
import { DEFAULT_LEASE_MS, EngineRegistry } from '@nap/workflow';
import type { EngineRecord } from '@nap/workflow';
import { BackupFileError, BackupWriter, readBackup } from './archive';
import type { BackupHeader, Item } from './archive';
import { gatewayFilesOf, listGatewayFiles, movedNotes, placeOf, unreadNotes } from './gateway-files';
import type { GatewayFile, GatewayFiles } from './gateway-files';
import { BUS_DATABASE, databaseExists, databasesFor, describeLocation, openDatabase } from './locations';
import type { Location } from './locations';
import { LocationWriter, documentsAt, emptyDatabases, readLocation, targetGatewayFiles } from './stores';
import { QUEUE_JOURNAL_COLLECTION } from '../queue-journal';

/** A refusal: nothing was written. */
export class TransferRefused extends Error {}

export interface TransferReport {
  databases: { db: string; collections: number; documents: number }[];
  files: number;
  /** What was left out or needs the reader's attention. */
  notes: string[];
  seconds: number;
}

export interface CommonOptions {
  /** Only these services' databases (all six and the standalone's journal when absent). */
  services?: ServiceName[];
  /** The environment whose `NAP_GW_*_DIR` variables say where the device gateway's files are (default: the process's). */
  env?: NodeJS.ProcessEnv;
}

export interface WriteOptions extends CommonOptions {
  /** Delete what the target's databases hold before writing (after every check passed). */
  replace?: boolean;
  /** The platform's `NAP_SECRET_KEY`: checked against the data's sealed secrets, and kept in a data directory target. */
  secretKey?: string;
  /** The device gateway's data directory, where its files go when the target is MongoDB. */
  filesTo?: string;
}

/**
 * The engines whose heartbeat moves on the location's data (as the workflow engine itself tells a
 * live one: read twice, two renewals apart; a renewal is a third of the lease).
 */
async function runningEngines(location: Location): Promise<string[]> {
  const db = serviceDatabase('workflow');
  if (!databaseExists(location, db)) return [];
  const store = openDatabase(location, db);
  try {
    const registry = new EngineRegistry(store.collection<EngineRecord>('engines'));
    const leaseMs = Math.max(DEFAULT_LEASE_MS, ...(await registry.all()).map((e) => (typeof e.leaseMs === 'number' ? e.leaseMs : 0)));
    const running = await registry.running(Math.ceil((2 * leaseMs) / 3) + 50);
    return running.map((e) => `${e._id} (pid ${e.pid} on ${e.host})`);
  } finally {
    await store.close();
  }
}

async function refuseWhileRunning(location: Location, role: 'source' | 'target'): Promise<void> {
  const running = await runningEngines(location);
  if (running.length > 0)
    throw new TransferRefused(
      `NAP is running on the ${role} ${describeLocation(location)}: ${running.join('; ')}. Stop every NAP process that uses it first (SIGTERM), so that nothing changes while it is copied`,
    );
}

/** The first sealed secret of a transfer's data: the token signing key of the admin service. */
function sealedIn(item: Item, db: string | undefined, name: string | undefined): string | undefined {
  if (item.kind !== 'docs' || db !== serviceDatabase('admin') || name !== 'keys') return undefined;
  const sealed = item.docs.find((d) => typeof d.privateKeySealed === 'string')?.privateKeySealed;
  return typeof sealed === 'string' ? sealed : undefined;
}

function checkKey(secretKey: string, sealed: string | undefined, source: string): void {
  if (sealed === undefined) return;
  try {
    createSecretBox(secretKey).open(sealed);
  } catch {
    throw new TransferRefused(
      `The secret key given is not the one ${source} was sealed with: its device passwords, integration secrets and token signing key could not be opened. Give the NAP_SECRET_KEY of the platform the data comes from`,
    );
  }
}

/** Refuses a target that holds documents in the databases to be written, or files where the gateway's go. */
async function refuseOccupied(target: Location, databases: string[], files: readonly GatewayFile[]): Promise<void> {
  const held = await documentsAt(target, databases);
  if (held.length === 0 && files.length === 0) return;
  const listed = held.slice(0, 6).map((c) => `${c.db}.${c.name} (${c.count})`);
  if (held.length > 6) listed.push(`${held.length - 6} more collections`);
  if (files.length > 0) listed.push(`${files.length} files of the device gateway (${files[0]?.full ?? ''}…)`);
  throw new TransferRefused(
    `The target ${describeLocation(target)} already holds data: ${listed.join(', ')}. Restore into a platform that never started, or pass --replace to delete what it holds first`,
  );
}

/** Keeps the key in a data directory target, as the platform reads it there; refuses another key already there. */
function keyFileCheck(target: Location, secretKey: string | undefined): string | undefined {
  if (target.kind !== 'dir' || secretKey === undefined) return undefined;
  const file = path.join(target.dir, 'secret.key');
  if (existsSync(file) && readFileSync(file, 'utf8').replace(/\r?\n$/, '') !== secretKey)
    throw new TransferRefused(`${file} holds another secret key than the data's; move it away first`);
  return file;
}

function installKey(file: string | undefined, secretKey: string | undefined, notes: string[]): void {
  if (file === undefined || secretKey === undefined || existsSync(file)) return;
  writeFileSync(file, `${secretKey}\n`, { mode: 0o600, flag: 'wx' });
  notes.push(`the secret key is kept in ${file}`);
}

class Tally {
  private readonly byDb = new Map<string, { collections: number; documents: number }>();
  files = 0;
  db: string | undefined;
  name: string | undefined;

  see(item: Item): void {
    if (item.kind === 'collection') {
      this.db = item.db;
      this.name = item.name;
      this.add(item.db, 0);
    } else if (item.kind === 'docs' && this.db !== undefined) {
      const entry = this.byDb.get(this.db);
      if (entry) entry.documents += item.docs.length;
    } else if (item.kind === 'file') {
      this.files += 1;
    }
  }

  /** A collection of `documents` documents, counted without reading them. */
  add(db: string, documents: number): void {
    const entry = this.byDb.get(db) ?? { collections: 0, documents: 0 };
    entry.collections += 1;
    entry.documents += documents;
    this.byDb.set(db, entry);
  }

  report(notes: string[], started: number): TransferReport {
    return {
      databases: [...this.byDb].map(([db, t]) => ({ db, ...t })),
      files: this.files,
      notes,
      seconds: (Date.now() - started) / 1000,
    };
  }
}

/** Notes on what the standalone's journal still holds: audit entries that only a standalone chains. */
async function journalNotes(location: Location, databases: string[]): Promise<string[]> {
  if (!databases.includes(BUS_DATABASE)) return [];
  // only the journal counts: the bus database also keeps the event stream's sequence reservation (bus_meta), in every laptop's data
  const held = (await documentsAt(location, [BUS_DATABASE]))
    .filter((c) => c.name === QUEUE_JOURNAL_COLLECTION)
    .reduce((n, c) => n + c.count, 0);
  return held === 0
    ? []
    : [
        `${BUS_DATABASE} holds audit entries not yet chained (${held} journal documents): a standalone started on the copy chains them; a distributed set does not read this journal, so start the standalone once on the source and stop it before moving to one`,
      ];
}

/** The device gateway's files at a transfer's target: where they go, and those already there. */
interface TargetFiles {
  files: GatewayFiles;
  held: GatewayFile[];
}

function targetFilesOf(to: Location, options: WriteOptions): TargetFiles | undefined {
  if (options.services !== undefined && !options.services.includes('gateway-devices')) return undefined;
  const files = targetGatewayFiles(to, options.filesTo, options.env ?? process.env);
  return { files, held: listGatewayFiles(files).files };
}

/**
 * Writes items into the target (its databases and the gateway's files there emptied first with
 * `replace`), counting them; a failure takes back everything written and is thrown. What the writer
 * left out goes to `notes`.
 */
async function writeAll(
  to: Location,
  target: TargetFiles | undefined,
  databases: string[],
  replace: boolean,
  items: AsyncIterable<Item>,
  notes: string[],
): Promise<Tally> {
  if (replace) {
    await emptyDatabases(to, databases);
    for (const file of target?.held ?? []) await rm(file.full, { force: true });
  }
  const writer = new LocationWriter(to, target?.files);
  const tally = new Tally();
  try {
    for await (const item of items) {
      tally.see(item);
      await writer.write(item);
    }
  } catch (err) {
    await writer.undo().catch(() => undefined);
    throw err;
  }
  await writer.close();
  notes.unshift(...writer.notes);
  if (writer.filesLeftOut > 0)
    notes.push(`${writer.filesLeftOut} files of the device gateway left out: name its data directory with --files-to`);
  if (target !== undefined && tally.files > 0) notes.push(...movedNotes(target.files, 'written to'));
  return tally;
}

/**
 * Writes the data of a stopped platform to a backup file: every database of the services (and the
 * standalone's journal), and from a data directory the device gateway's files. The secret key is
 * never written into it.
 */
export async function backup(from: Location, file: string, options: CommonOptions = {}): Promise<TransferReport & { bytes: number }> {
  const started = Date.now();
  if (existsSync(file)) throw new TransferRefused(`${file} exists; name a new file`);
  if (from.kind === 'dir' && !databaseExists(from, serviceDatabase('admin')))
    throw new TransferRefused(`${from.dir} holds no data of NAP (no ${serviceDatabase('admin')} database)`);
  await refuseWhileRunning(from, 'source');
  const databases = databasesFor(options.services).filter((db) => databaseExists(from, db));
  const source = sourceFilesOf(from, options);
  const header: BackupHeader = { createdAt: new Date().toISOString(), release: RELEASE, source: describeLocation(from), databases };
  const writer = new BackupWriter(file, header);
  const tally = new Tally();
  try {
    for await (const item of readLocation(from, databases, { files: source.listed })) {
      tally.see(item);
      await writer.write(item);
    }
    await writer.finish();
  } catch (err) {
    await writer.abort();
    throw err;
  }
  const notes = [...source.unread, ...source.moved, ...(await journalNotes(from, databases))];
  if (from.kind === 'dir' && existsSync(path.join(from.dir, 'secret.key')))
    notes.push(`the secret key is not in the backup: keep ${path.join(from.dir, 'secret.key')} with it, stored apart (restore needs it)`);
  return { ...tally.report(notes, started), bytes: (await stat(file)).size };
}

/**
 * The device gateway's files of a transfer's source: those of a data directory (MongoDB holds none),
 * as the environment places them; notes on those left out (`unread`) and on where moved kinds were
 * read from (`moved`).
 */
function sourceFilesOf(from: Location, options: CommonOptions): { listed: GatewayFile[]; unread: string[]; moved: string[] } {
  if (from.kind !== 'dir' || (options.services !== undefined && !options.services.includes('gateway-devices')))
    return { listed: [], unread: [], moved: [] };
  const files = gatewayFilesOf(from.dir, options.env ?? process.env);
  const listing = listGatewayFiles(files);
  return { listed: listing.files, unread: unreadNotes(listing), moved: listing.files.length > 0 ? movedNotes(files, 'read from') : [] };
}

/** What a backup holds, read to its end and checked; throws at the first problem. */
export async function inspectBackup(
  file: string,
): Promise<{ header: BackupHeader; report: TransferReport; sealed: string | undefined; databases: string[] }> {
  const started = Date.now();
  const tally = new Tally();
  let header: BackupHeader | undefined;
  let sealed: string | undefined;
  try {
    for await (const item of readBackup(file)) {
      if (item.kind === 'header') {
        header = item.header;
        continue;
      }
      sealed ??= sealedIn(item, tally.db, tally.name);
      tally.see(item);
    }
  } catch (err) {
    if (err instanceof BackupFileError) throw new BackupFileError(`${file}: ${err.message}`);
    throw err;
  }
  if (header === undefined) throw new TransferRefused(`${file} has no header`);
  const report = tally.report([], started);
  return { header, report, sealed, databases: report.databases.map((d) => d.db) };
}

/**
 * Restores a backup into a location that holds no data (or, with `replace`, whose data may go):
 * the whole file is read and checked first, nothing is written from a damaged one; a write that
 * fails takes back everything written.
 */
export async function restore(file: string, to: Location, options: WriteOptions = {}): Promise<TransferReport> {
  const started = Date.now();
  const inspected = await inspectBackup(file);
  const wanted = new Set(databasesFor(options.services));
  const databases = inspected.databases.filter((db) => wanted.has(db));
  const target = targetFilesOf(to, options);
  await refuseWhileRunning(to, 'target');
  if (!options.replace) await refuseOccupied(to, databases, target?.held ?? []);
  const notes: string[] = [];
  if (options.secretKey !== undefined) checkKey(options.secretKey, inspected.sealed, file);
  else
    notes.push(
      `the secret key was not checked (no --secret-key-file): the platform on the restored data needs the NAP_SECRET_KEY of ${inspected.header.source}`,
    );
  const keyFile = keyFileCheck(to, options.secretKey);
  const items = async function* (): AsyncGenerator<Item> {
    let skipping = false;
    for await (const item of readBackup(file)) {
      if (item.kind === 'header') continue;
      if (item.kind === 'collection') skipping = !wanted.has(item.db);
      if (item.kind === 'file') skipping = target === undefined;
      if (!skipping) yield item;
    }
  };
  const tally = await writeAll(to, target, databases, options.replace === true, items(), notes);
  installKey(keyFile, options.secretKey, notes);
  return tally.report([...notes, ...(await journalNotes(to, databases))], started);
}

/**
 * Copies the data of a stopped platform from one location to another (a laptop's data directory
 * into MongoDB, or back), with the checks and the undo of {@link restore}.
 */
export async function copy(from: Location, to: Location, options: WriteOptions = {}): Promise<TransferReport> {
  const started = Date.now();
  if (from.kind === 'dir' && !databaseExists(from, serviceDatabase('admin')))
    throw new TransferRefused(`${from.dir} holds no data of NAP (no ${serviceDatabase('admin')} database)`);
  if (describeLocation(from) === describeLocation(to)) throw new TransferRefused('The source and the target are the same');
  await refuseWhileRunning(from, 'source');
  await refuseWhileRunning(to, 'target');
  const databases = databasesFor(options.services).filter((db) => databaseExists(from, db));
  const source = sourceFilesOf(from, options);
  const target = targetFilesOf(to, options);
  // a directory both sides use (a kind the environment moved) is in place already: neither copied nor emptied
  const inPlace = new Set(source.listed.filter((f) => target !== undefined && placeOf(target.files, f.path) === f.full).map((f) => f.full));
  const toCopy = source.listed.filter((f) => !inPlace.has(f.full));
  if (target !== undefined) target.held = target.held.filter((f) => !inPlace.has(f.full));
  if (!options.replace) await refuseOccupied(to, databases, target?.held ?? []);
  // where moved kinds were read from is where they stay (in place) or what the target's notes say
  const notes: string[] = [...source.unread];
  if (inPlace.size > 0)
    notes.push(`${inPlace.size} files of the device gateway are in place already: the source and the target share their directories`);
  let secretKey = options.secretKey;
  const sourceKeyFile = from.kind === 'dir' ? path.join(from.dir, 'secret.key') : undefined;
  if (secretKey === undefined && sourceKeyFile !== undefined && existsSync(sourceKeyFile))
    secretKey = readFileSync(sourceKeyFile, 'utf8').replace(/\r?\n$/, '');
  if (secretKey !== undefined && databases.includes(serviceDatabase('admin'))) {
    const admin = openDatabase(from, serviceDatabase('admin'));
    try {
      const sealed = (await admin.collection('keys').findOne({ privateKeySealed: { $exists: true } }))?.privateKeySealed;
      checkKey(secretKey, typeof sealed === 'string' ? sealed : undefined, describeLocation(from));
    } finally {
      await admin.close();
    }
  } else if (secretKey === undefined) {
    notes.push(
      `the secret key was not checked (no --secret-key-file): the platform on the copy needs the NAP_SECRET_KEY of ${describeLocation(from)}`,
    );
  }
  const keyFile = keyFileCheck(to, secretKey);
  const tally = await writeAll(to, target, databases, options.replace === true, readLocation(from, databases, { files: toCopy }), notes);
  installKey(keyFile, secretKey, notes);
  return tally.report([...notes, ...(await journalNotes(from, databases))], started);
}

/** What a location holds: per database, its collections and documents; for a data directory, the device gateway's files. */
export async function inspectLocation(location: Location, env: NodeJS.ProcessEnv = process.env): Promise<TransferReport> {
  const started = Date.now();
  const tally = new Tally();
  const databases = databasesFor(undefined).filter((db) => databaseExists(location, db));
  for (const c of await documentsAt(location, databases)) tally.add(c.db, c.count);
  tally.files = location.kind === 'dir' ? listGatewayFiles(gatewayFilesOf(location.dir, env)).files.length : 0;
  const notes = await journalNotes(location, databases);
  const running = await runningEngines(location);
  if (running.length > 0) notes.push(`NAP is running on it: ${running.join('; ')}`);
  return tally.report(notes, started);
}
