import { CATALOG } from '@nap/contracts';
import type { OperationDef } from '@nap/contracts';
import { RouteTable } from '../src/routes';

/** A concrete path of a route: each `:param` replaced by a value no literal segment has. */
function sample(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, 'x-$1-1');
}

const routed = CATALOG.filter((op): op is OperationDef & { http: NonNullable<OperationDef['http']> } => op.http !== undefined);
const table = new RouteTable(CATALOG);

describe('the route table', () => {
  it('finds every catalog route with its own method and path', () => {
    const wrong = routed
      .filter((op) => table.find(op.http.method, sample(op.http.path))?.op.id !== op.id)
      .map((op) => `${op.http.method} ${op.http.path}`);
    expect(wrong).toEqual([]);
  });

  it('never lets a parametrised route of another method capture a literal path', () => {
    // for every literal path, every other method either has its own literal route there or answers 405
    const literals = routed.filter((op) => !op.http.path.includes(':'));
    for (const op of literals) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const found = table.find(method, op.http.path);
        if (found === undefined) {
          expect(table.allowed(op.http.path)).toContain(op.http.method);
          continue;
        }
        expect({ route: `${method} ${op.http.path}`, path: found.op.http?.path }).toEqual({
          route: `${method} ${op.http.path}`,
          path: op.http.path,
        });
      }
    }
    expect(table.find('GET', '/operations-manager/jobs/start')).toBeUndefined();
    expect(table.allowed('/operations-manager/jobs/start')).toEqual(['POST']);
    expect(table.find('POST', '/operations-manager/jobs/start')?.op.id).toBe('workflow.startJob');
    expect(table.find('GET', '/operations-manager/jobs/5f1e2d3c4b5a69788796a5b4')?.op.id).toBe('workflow.getJob');
  });

  it('gives a path to its most literal route across methods, and names its methods for a 405', () => {
    // GET …/triggers/:id/export must not capture DELETE …/triggers/action/:id's paths
    expect(table.find('GET', '/operations-manager/triggers/action/export')).toBeUndefined();
    expect(table.allowed('/operations-manager/triggers/action/export')).toEqual(['DELETE']);
    expect(table.find('DELETE', '/operations-manager/triggers/action/a1')?.op.id).toBe('workflow.deleteTriggersByAction');
    expect(table.find('GET', '/operations-manager/triggers/t1/export')?.op.id).toBe('workflow.exportTrigger');
    expect(table.allowed('/operations-manager/triggers/t1')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    expect(table.find('GET', '/operations-manager/triggers/t1/')?.params).toEqual({ id: 't1' });
  });

  it('decodes parameters only once the route is chosen: bad percent-encoding and over-long values are 400, a 405 stays a 405', () => {
    expect(table.find('GET', '/operations-manager/triggers/a%20b')?.params).toEqual({ id: 'a b' });
    expect(() => table.find('GET', '/operations-manager/triggers/%ff')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    // the shape of a path names its route whatever its encoding: another method's literal still wins
    expect(table.find('GET', '/operations-manager/triggers/action/%ff')).toBeUndefined();
    expect(table.allowed('/operations-manager/triggers/action/%ff')).toEqual(['DELETE']);
    expect(table.allowed('/operations-manager/triggers/%ff')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    const short = new RouteTable(CATALOG, { maxParamLength: 8 });
    expect(short.find('GET', '/operations-manager/triggers/12345678')?.params).toEqual({ id: '12345678' });
    expect(() => short.find('GET', '/operations-manager/triggers/123456789')).toThrow(
      expect.objectContaining({ code: 'PARAMETER_TOO_LONG' }),
    );
  });

  it('tries a route whose first segment is a parameter for any first segment, in rank order with the others', () => {
    const base = CATALOG[0] as OperationDef;
    const op = (id: string, method: string, path: string): OperationDef => ({ ...base, id, http: { method, path } }) as OperationDef;
    const synthetic = new RouteTable([
      op('t.get', 'GET', '/:tenant/items/:id'),
      op('a.get', 'GET', '/admin/items/:id'),
      op('a.special', 'DELETE', '/admin/items/special'),
      op('a.tenant', 'PUT', '/admin/:section/x'),
    ]);
    expect(synthetic.find('GET', '/acme/items/7')).toMatchObject({ op: { id: 't.get' }, params: { tenant: 'acme', id: '7' } });
    expect(synthetic.find('GET', '/admin/items/7')?.op.id).toBe('a.get');
    expect(synthetic.find('GET', '/admin/items/special')).toBeUndefined();
    expect(synthetic.allowed('/admin/items/special')).toEqual(['DELETE']);
    // /admin/items/x: GET /admin/items/:id (a parameter last) is more literal than PUT /admin/:section/x (a parameter second)
    expect(synthetic.find('PUT', '/admin/items/x')).toBeUndefined();
    expect(synthetic.allowed('/admin/items/x')).toEqual(['GET', 'HEAD']);
    expect(synthetic.find('PUT', '/admin/things/x')?.op.id).toBe('a.tenant');
    expect(synthetic.allowed('/acme/items/7')).toEqual(['GET', 'HEAD']);
  });
});
