import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CATALOG, renderCatalogMarkdown } from '../src/catalog';

const DOC = resolve(__dirname, '../../docs/catalog.md');

describe('docs/catalog.md', () => {
  it('is what the catalog generates now', () => {
    const generated = renderCatalogMarkdown();
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, generated);
    if (!existsSync(DOC)) throw new Error(`${DOC} is missing; create it with: UPDATE_DOCS=1 npx jest contracts/test/catalog-docs`);
    const current = readFileSync(DOC, 'utf8');
    if (current !== generated) {
      throw new Error(`${DOC} is out of date with the catalog; regenerate it with: UPDATE_DOCS=1 npx jest contracts/test/catalog-docs`);
    }
  });

  it('has one row per operation, with its route, roles and timeout', () => {
    const rows = renderCatalogMarkdown()
      .split('\n')
      .filter((l) => /^\| [a-z-]+\.[A-Za-z]+ \|/.test(l));
    expect(rows).toHaveLength(CATALOG.length);
    expect(rows).toContain(
      '| workflow.startJobWithOptions | POST | `/workflow_engine/startJobWithOptions/:workflow` | admin, engineering, operations, apiwrite | 30000 | spec |',
    );
    expect(rows).toContain('| admin.login | POST | `/login` | public | 10000 | addition |');
    expect(rows).toContain('| gateway-devices.isAlive |  |  | admin, engineering, operations, apiwrite | 120000 | bus-only |');
  });
});
