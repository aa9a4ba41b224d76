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
    const wrong = routed.filter((op) => table.find(op.http.method, sample(op.http.path))?.op.id !== op.id).map((op) => `${op.http.method} ${op.http.path}`);
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
        expect({ route: `${method} ${op.http.path}`, path: found.op.http?.path }).toEqual({ route: `${method} ${op.http.path}`, path: op.http.path });
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
    expect(table.allowed('/operations-manager/triggers/t1')).toEqual(['DELETE', 'GET', 'PATCH']);
    expect(table.find('GET', '/operations-manager/triggers/t1/')?.params).toEqual({ id: 't1' });
  });

  it('decodes parameters only once the route is chosen: bad percent-encoding and over-long values are 400, a 405 stays a 405', () => {
    expect(table.find('GET', '/operations-manager/triggers/a%20b')?.params).toEqual({ id: 'a b' });
    expect(() => table.find('GET', '/operations-manager/triggers/%ff')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    // the shape of a path names its route whatever its encoding: another method's literal still wins
    expect(table.find('GET', '/operations-manager/triggers/action/%ff')).toBeUndefined();
    expect(table.allowed('/operations-manager/triggers/action/%ff')).toEqual(['DELETE']);
    expect(table.allowed('/operations-manager/triggers/%ff')).toEqual(['DELETE', 'GET', 'PATCH']);
    const short = new RouteTable(CATALOG, { maxParamLength: 8 });
    expect(short.find('GET', '/operations-manager/triggers/12345678')?.params).toEqual({ id: '12345678' });
    expect(() => short.find('GET', '/operations-manager/triggers/123456789')).toThrow(expect.objectContaining({ code: 'PARAMETER_TOO_LONG' }));
  });
});
