import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the shared conformance fixtures live, beside the repository. */
export const FIXTURES_DIR = path.resolve(__dirname, '../../../../shared/fixtures/itential-assets');

/** One command template of a fixture project, with the project it came from. */
export interface FixtureTemplate {
  project: string;
  document: Record<string, unknown> & { name: string; commands: { command: string; rules: Record<string, unknown>[] }[] };
}

/** The 26 command templates of the fixture projects (components of type mopCommandTemplate), or why they are absent. */
export function fixtureTemplates(): { templates: FixtureTemplate[]; missing?: string } {
  if (!existsSync(FIXTURES_DIR)) return { templates: [], missing: `the fixtures folder ${FIXTURES_DIR} is absent` };
  const templates: FixtureTemplate[] = [];
  for (const file of readdirSync(FIXTURES_DIR)
    .filter((f) => f.endsWith('.project.json'))
    .sort()) {
    const project = JSON.parse(readFileSync(path.join(FIXTURES_DIR, file), 'utf8')) as {
      components?: { type?: string; document?: FixtureTemplate['document'] }[];
    };
    for (const c of project.components ?? [])
      if (c.type === 'mopCommandTemplate' && c.document)
        templates.push({ project: file.replace(/\.project\.json$/, ''), document: c.document });
  }
  return { templates };
}

/** Members the service sets on every stored template. */
export const SERVICE_OWNED = ['_id', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy'];

export function withoutOwned(doc: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([k]) => !SERVICE_OWNED.includes(k)));
}
