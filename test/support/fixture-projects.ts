import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The exported projects of the shared fixtures (../shared/fixtures/itential-assets beside the
 * repository), read as the conformance tests need them. Project members are named
 * `@<project id>: <name>`, as the projects themselves refer to them (childJob tasks, automations).
 */

export const FIXTURES_DIR = path.resolve(__dirname, '../../../shared/fixtures/itential-assets');
export const FIXTURES_PRESENT = existsSync(FIXTURES_DIR);

export interface FixtureComponent {
  type: string;
  document: Record<string, unknown> & { name: string };
}

export interface FixtureProject {
  _id: string;
  name: string;
  components: FixtureComponent[];
}

/** Every exported project, by file name order. */
export function fixtureProjects(): FixtureProject[] {
  return readdirSync(FIXTURES_DIR)
    .filter((f) => f.endsWith('.project.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(FIXTURES_DIR, f), 'utf8')) as FixtureProject);
}

/** The documents of one component type, named as their project names them. */
export function projectMembers(all: FixtureProject[], type: string): { project: string; doc: Record<string, unknown> & { name: string } }[] {
  return all.flatMap((p) => p.components.filter((c) => c.type === type).map((c) => ({ project: p._id, doc: { ...c.document, name: `@${p._id}: ${c.document.name}` } })));
}

/** Splits documents into import requests under the gateway's 1 MiB body limit. */
export function importBatches<T>(items: T[], maxBytes = 700_000): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const bytes = Buffer.byteLength(JSON.stringify(item));
    if (current.length > 0 && size + bytes > maxBytes) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += bytes;
  }
  if (current.length > 0) out.push(current);
  return out;
}
