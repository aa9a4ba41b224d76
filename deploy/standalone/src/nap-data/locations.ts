import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_NAMES, serviceDatabase } from '@nap/contracts';
import type { ServiceName } from '@nap/contracts';
import { createStore } from '@nap/store';
import type { Store } from '@nap/store';

/**
 * Where a platform keeps its data: a data directory (`NAP_DATA_DIR` of the standalone, or of
 * services on embedded stores, one `nap_<service>` database each) or a MongoDB deployment (one
 * database of the same name per service).
 */
export type Location = { kind: 'dir'; dir: string } | { kind: 'mongo'; url: string };

/** The standalone's work queue journal (audit entries not yet chained): a database beside the services'. */
export const BUS_DATABASE = 'nap_bus';

/** A `mongodb://` or `mongodb+srv://` URL, or else a directory. */
export function parseLocation(text: string): Location {
  if (/^mongodb(\+srv)?:\/\//.test(text)) return { kind: 'mongo', url: text };
  return { kind: 'dir', dir: path.resolve(text) };
}

/** The location as it can be printed: a MongoDB URL without its password. */
export function describeLocation(location: Location): string {
  if (location.kind === 'dir') return location.dir;
  try {
    const url = new URL(location.url);
    if (url.password !== '') url.password = '****';
    return url.toString();
  } catch {
    return 'mongodb://…';
  }
}

/**
 * The databases a transfer covers: those of the services named (all six when none is), and the
 * standalone's journal when every service is covered.
 */
export function databasesFor(services: readonly ServiceName[] | undefined): string[] {
  const names = (services ?? SERVICE_NAMES).map(serviceDatabase);
  return services === undefined ? [...names, BUS_DATABASE] : names;
}

/** Whether a database exists at the location (an embedded one is a directory; MongoDB makes them on first write). */
export function databaseExists(location: Location, db: string): boolean {
  return location.kind === 'mongo' || existsSync(path.join(location.dir, db, 'data.mdb'));
}

/** Opens a database of the location (an embedded one is created when absent: only call so to write). */
export function openDatabase(location: Location, db: string): Store {
  return location.kind === 'dir'
    ? createStore({ dbName: db, dataDir: location.dir })
    : createStore({ dbName: db, dataDir: '', mongoUrl: location.url });
}

/** The directory of the device gateway's files (playbooks, scripts, modules, …) under a data directory. */
export function filesDirOf(dataDir: string): string {
  return path.join(dataDir, 'gateway');
}

/**
 * Every regular file under `dir`, as paths relative to it with `/`, in order, but those under the
 * paths `apart` answers true for; symbolic links are named in `skipped`.
 */
export function filesUnder(dir: string, apart: (full: string) => boolean = () => false): { files: string[]; skipped: string[] } {
  const files: string[] = [];
  const skipped: string[] = [];
  const walk = (relative: string) => {
    const here = path.join(dir, relative);
    for (const entry of readdirSync(here, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (apart(path.join(here, entry.name))) continue;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile()) files.push(rel);
      else skipped.push(rel);
    }
  };
  if (existsSync(dir) && statSync(dir).isDirectory()) walk('');
  return { files, skipped };
}
