import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOG } from '@nap/contracts';
import { LIFECYCLE_ROUTES } from '../src/commands/platform';
import { PORTABLE_RESOURCES, portableOf } from '../src/resources/portable';
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
      for (const spec of [def.list, def.get, def.create, def.delete, def.import, def.update, def.export, def.toggle]) {
        if (spec !== undefined) used.push(`${spec.route.method} ${spec.route.path}`);
      }
    }
    expect(used.length).toBeGreaterThan(80);
    expect(used.filter((r) => !routes.has(r))).toEqual([]);
    expect(used).toContain('PATCH /operations-manager/triggers/:id');
    expect(used).toContain('PUT /profiles/:id');
  });

  it('replace in place wherever the platform has an update route for a resource it imports', () => {
    // every resource nap imports has a route of the catalog that updates one in place
    expect(RESOURCES.filter((def) => def.import !== undefined && def.update === undefined).map((def) => def.plural)).toEqual([]);
    // where the update route does not always apply, a delete (and the import) must replace the document instead
    for (const def of RESOURCES.filter((d) => d.update !== undefined))
      expect({
        resource: def.plural,
        deletable: def.delete !== undefined || (def.update?.notApplicable === undefined && def.update?.inPlace === undefined),
      }).toEqual({
        resource: def.plural,
        deletable: true,
      });
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
    // the job archive commands and the update in place of an automation's triggers call them as the
    // pattern above reads, so that a renamed route fails here
    for (const route of [
      'PATCH /operations-manager/automations/:id',
      'PATCH /operations-manager/triggers/:id',
      'DELETE /operations-manager/triggers/:id',
      'PUT /operations-manager/triggers',
      'POST /operations-manager/jobs/archive',
      'GET /operations-manager/jobs/archives',
      'GET /operations-manager/jobs/archives/:archiveId',
      'DELETE /operations-manager/jobs/archives/:archiveId',
    ]) {
      expect(used).toContain(route);
    }
  });

  it('has a gap entry wherever a resource lacks a route for a verb and nap has no other way', () => {
    for (const def of RESOURCES) {
      const has = {
        create: def.create ?? def.portable?.create,
        delete: def.delete ?? def.portable?.delete,
        import: def.import ?? def.portable,
        export: def.export ?? def.portable,
      };
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
      for (const [verb, gap] of Object.entries(def.gaps))
        expect({ resource: def.plural, verb, gapBesideAWay: gap !== undefined && has[verb as keyof typeof has] !== undefined }).toEqual({
          resource: def.plural,
          verb,
          gapBesideAWay: false,
        });
      expect({ resource: def.plural, describable: def.list !== undefined || def.get !== undefined }).toEqual({
        resource: def.plural,
        describable: true,
      });
    }
  });

  it('has the behaviour of every portable form, and a portable form for every behaviour', () => {
    expect(RESOURCES.filter((def) => def.portable !== undefined).map((def) => def.plural)).toEqual([...PORTABLE_RESOURCES]);
    for (const def of RESOURCES.filter((d) => d.portable !== undefined)) {
      expect({ resource: def.plural, exportRoute: def.export, importRoute: def.import }).toEqual({
        resource: def.plural,
        exportRoute: undefined,
        importRoute: undefined,
      });
      expect(typeof portableOf(def).prepare).toBe('function');
      expect(portableOf(def).delete !== undefined).toBe(def.portable?.delete !== undefined);
    }
  });
});
