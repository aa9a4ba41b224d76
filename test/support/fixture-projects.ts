import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { memberName } from '@nap/contracts';
import type { TestPlatform } from '@nap/standalone';

/**
 * The exported projects of the shared fixtures (../shared/fixtures/itential-assets beside the
 * repository), read and imported as the conformance tests need them. Project members are named
 * `@<project id>: <name>`, as the projects themselves refer to them (childJob tasks, templates named
 * in childJob variables, automations).
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

/** A project member as imported: the project it belongs to and its document, named as a member. */
export interface ProjectMember {
  project: string;
  doc: Record<string, unknown> & { name: string };
}

/** Every exported project, by file name order. */
export function fixtureProjects(): FixtureProject[] {
  return readdirSync(FIXTURES_DIR)
    .filter((f) => f.endsWith('.project.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(FIXTURES_DIR, f), 'utf8')) as FixtureProject);
}

/** The documents of one component type, named as their project names them. */
export function projectMembers(all: FixtureProject[], type: string): ProjectMember[] {
  return all.flatMap((p) =>
    p.components
      .filter((c) => c.type === type)
      .map((c) => ({ project: p._id, doc: { ...c.document, name: memberName(p._id, c.document.name) } })),
  );
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

/**
 * Imports the projects as a user does, through the HTTP interface (`POST
 * /automation-studio/projects/import`, one project at a time): every workflow, JST, template, JSON
 * form and MOP command template becomes a member of its project (`@<project id>: <name>`), ids as
 * exported. Throws naming the project that was refused and why.
 */
export async function importFixtureProjects(platform: TestPlatform, token: string, all: FixtureProject[]): Promise<void> {
  for (const project of all) {
    const res = await platform.http('POST', '/automation-studio/projects/import', { token, body: { project } });
    if (res.status !== 200)
      throw new Error(`Importing the fixture project "${project.name}" failed: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  }
}
