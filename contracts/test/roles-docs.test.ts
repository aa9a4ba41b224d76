import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CATALOG } from '../src/catalog';
import { ROLE_NAMES } from '../src/roles';

/** docs/administration.md says what each role may call: its table of roles stays the catalog's. */

const DOC = readFileSync(resolve(__dirname, '../../docs/administration.md'), 'utf8');
const httpOps = CATALOG.filter((op) => op.http !== undefined);

describe('docs/administration.md, accounts, groups and roles', () => {
  const rows = new Map(
    [...DOC.matchAll(/^\| `([a-z]+)` \| (\d+) \| (.+) \|$/gm)].map((m) => [m[1] ?? '', { count: Number(m[2]), text: m[3] ?? '' }]),
  );

  it('has one row per role, in the order of the roles', () => {
    expect([...rows.keys()]).toEqual(ROLE_NAMES);
  });

  it.each(ROLE_NAMES)('counts the HTTP operations role %s may call', (role) => {
    expect(rows.get(role)?.count).toBe(httpOps.filter((op) => op.roles.includes(role)).length);
  });

  it('counts the operations and the public ones', () => {
    const publicOps = httpOps.filter((op) => op.roles.length === 0).length;
    expect(DOC).toContain(`HTTP operations (${httpOps.length}, of which ${publicOps} are public)`);
    const callerOps = httpOps.filter((op) => op.auth === 'caller').length;
    expect(DOC).toContain(`The counts include the ${callerOps} that act on the caller's own session`);
    expect(DOC).toContain(`\`admin\` lists ${callerOps} fewer there`);
  });
});
