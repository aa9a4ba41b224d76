import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** The shared fixtures beside the clone (../shared/fixtures): real exported projects of the original platform. */
export const FIXTURES = path.resolve(__dirname, '../../../../shared/fixtures/itential-assets');

export interface FixtureTransformation {
  /** The `_id` of the project the transformation is a component of. */
  project: string;
  /** The project's file, without `.project.json`. */
  file: string;
  doc: Record<string, unknown> & {
    _id: string;
    name: string;
    incoming: (Record<string, unknown> & { $id: string })[];
    steps: Record<string, unknown>[];
    functions?: Record<string, unknown>[];
  };
}

/** Every transformation component of the fixture projects, as exported, in file order. */
export function fixtureTransformations(): FixtureTransformation[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.project.json'))
    .sort()
    .flatMap((f) => {
      const p = JSON.parse(readFileSync(path.join(FIXTURES, f), 'utf8')) as {
        _id: string;
        components: { type: string; document: FixtureTransformation['doc'] }[];
      };
      return p.components
        .filter((c) => c.type === 'transformation')
        .map((c) => ({ project: p._id, file: f.replace('.project.json', ''), doc: c.document }));
    });
}
