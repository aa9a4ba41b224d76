import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOG } from '@nap/contracts';
import { LIFECYCLE_ROUTES } from '../src/commands/platform';
import { RESOURCES } from '../src/resources/registry';

/**
 * `nap` is a client of the HTTP interface only: every route it calls, in the resource table and in
 * the commands, must be a route of the operation catalog, so that a route the platform renames or
 * drops fails here rather than in a user's terminal.
 */
const routes = new Set(CATALOG.filter((op) => op.http !== undefined).map((op) => `${op.http!.method} ${op.http!.path}`));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

describe('the routes nap calls', () => {
  it('are routes of the catalog, for every resource and verb', () => {
    const used: string[] = [];
    for (const def of RESOURCES) {
      for (const spec of [def.list, def.get, def.create, def.delete, def.import, def.export]) {
        if (spec !== undefined) used.push(`${spec.route.method} ${spec.route.path}`);
      }
    }
    expect(used.length).toBeGreaterThan(80);
    expect(used.filter((r) => !routes.has(r))).toEqual([]);
  });

  it('are routes of the catalog in the commands too', () => {
    const used: string[] = [];
    const call = /method: '(GET|POST|PUT|PATCH|DELETE)',\s*path: (?:pathOf\()?[`']([^`']+)[`']/g;
    for (const file of sourceFiles(path.join(__dirname, '../src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(call)) used.push(`${m[1]} ${m[2]!.replace('${action}', 'pause')}`);
    }
    for (const kind of Object.values(LIFECYCLE_ROUTES)) for (const route of Object.values(kind)) used.push(`PUT ${route}`);
    expect(used.length).toBeGreaterThan(15);
    expect(used.filter((r) => !routes.has(r))).toEqual([]);
    for (const route of [
      'POST /operations-manager/jobs/:jobId/resume',
      'GET /operations-manager/jobs/:jobId/events',
      'PUT /applications/:name/restart',
      'PUT /adapters/:name/stop',
    ]) {
      expect(routes.has(route)).toBe(true);
    }
  });

  it('has a gap entry wherever a resource lacks a route for a verb', () => {
    for (const def of RESOURCES) {
      const has = { create: def.create, delete: def.delete, import: def.import, export: def.export };
      for (const [verb, spec] of Object.entries(has)) {
        expect({
          resource: def.plural,
          verb,
          covered: spec !== undefined || def.gaps[verb as keyof typeof def.gaps] !== undefined,
        }).toEqual({
          resource: def.plural,
          verb,
          covered: true,
        });
      }
      expect({ resource: def.plural, describable: def.list !== undefined || def.get !== undefined }).toEqual({
        resource: def.plural,
        describable: true,
      });
    }
  });
});
