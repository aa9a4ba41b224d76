import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowDocument } from '@nap/contracts';
import { fixturesAbsent } from '@nap/testing';

/** The shared conformance fixtures, beside the repository. */
export const FIXTURES_DIR = path.resolve(__dirname, '../../../../shared/fixtures/itential-assets');
export const FIXTURES_PRESENT = existsSync(FIXTURES_DIR);

interface Project {
  _id: string;
  components: { type: string; document: WorkflowDocument }[];
}

/** Every workflow of the exported projects. */
export function fixtureWorkflows(): WorkflowDocument[] {
  return readdirSync(FIXTURES_DIR)
    .filter((f) => f.endsWith('.project.json'))
    .sort()
    .flatMap((f) =>
      (JSON.parse(readFileSync(path.join(FIXTURES_DIR, f), 'utf8')) as Project).components
        .filter((c) => c.type === 'workflow')
        .map((c) => c.document),
    );
}

/** The 7 automation documents (`*_Automations_*.json`). */
export function fixtureAutomations(): Record<string, unknown>[] {
  return readdirSync(FIXTURES_DIR)
    .filter((f) => f.includes('_Automations_') && f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(FIXTURES_DIR, f), 'utf8')) as Record<string, unknown>);
}

/** A conformance part that could not run: a loud warning on a developer machine, a failure under CI=true. */
export function warnFixturesAbsent(what: string): void {
  fixturesAbsent(FIXTURES_DIR, what);
}
