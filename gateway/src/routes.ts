import type { OperationDef } from '@nap/contracts';

/**
 * Catalog operations with a route, ordered so that a literal segment is tried before a parameter
 * in the same place (`/adapters/brokers/mapping` before `/adapters/:name`).
 */
export function routeOrder(catalog: readonly OperationDef[]): OperationDef[] {
  const rank = (path: string) => path.split('/').map((segment) => (segment.startsWith(':') ? '1' : '0')).join('');
  return catalog
    .filter((op) => op.http !== undefined)
    .sort((a, b) => {
      const ra = rank(a.http?.path ?? '');
      const rb = rank(b.http?.path ?? '');
      return ra < rb ? -1 : ra > rb ? 1 : 0;
    });
}
