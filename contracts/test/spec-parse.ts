import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Reads the HTTP interface spec (docs/spec/http-interface.md at the repository root) and extracts
 * what the catalog must cover. Each extractor throws when it finds nothing, so a change of the
 * document's layout fails the tests instead of emptying them.
 */

export const SPEC_PATH = resolve(__dirname, '../../docs/spec/http-interface.md');

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export interface SpecRoute {
  method: string;
  path: string;
}

export interface TableRoute extends SpecRoute {
  /** Operation name of the first column; absent for the Authentication table. */
  name?: string;
  /** The `## ` / `### ` heading the table is under. */
  section: string;
  cells: string[];
}

export function readSpec(): string {
  if (!existsSync(SPEC_PATH)) {
    throw new Error(`The HTTP interface spec is missing at ${SPEC_PATH}; copy /work/shared/spec/http-interface.md there`);
  }
  return readFileSync(SPEC_PATH, 'utf8');
}

/** `/a/:x/b/:y` → `/a/:/b/:` so that parameter names do not matter. */
export function normalise(path: string): string {
  return path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, ':');
}

export function routeKey(r: SpecRoute): string {
  return `${r.method} ${normalise(r.path)}`;
}

const ROUTE_CELL = new RegExp(`^(${METHODS.join('|')}) (/\\S*)$`);
const ROUTE_ANYWHERE = new RegExp(`\\b(${METHODS.join('|')}) (/[A-Za-z0-9_\\-/:]*)`, 'g');

/** The route bullet (`- POST /path`) of each numbered operation `### N. Title`, by number. */
export function numberedOperations(spec: string): Map<number, SpecRoute & { title: string }> {
  const result = new Map<number, SpecRoute & { title: string }>();
  const sections = spec.split(/^(?=### )/m);
  for (const section of sections) {
    const heading = /^### (\d+)\. (.+)$/m.exec(section);
    if (heading === null) continue;
    const bullet = new RegExp(`^- (${METHODS.join('|')}) (/\\S+)$`, 'm').exec(section);
    if (bullet === null) throw new Error(`Operation ${heading[1]} (${heading[2]}) of the spec has no "- METHOD /route" bullet`);
    result.set(Number(heading[1]), { method: bullet[1] as string, path: bullet[2] as string, title: heading[2] as string });
  }
  if (result.size === 0) throw new Error('No numbered operation ("### N. Title") found in the spec');
  return result;
}

/** Every table row with a `METHOD /route` cell, with the heading it is under. */
export function tableRoutes(spec: string): TableRoute[] {
  const rows: TableRoute[] = [];
  let section = '';
  for (const line of spec.split('\n')) {
    if (line.startsWith('#')) section = line.replace(/^#+\s*/, '');
    if (!line.startsWith('|')) continue;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const index = cells.findIndex((c) => ROUTE_CELL.test(c));
    if (index < 0) continue;
    const m = ROUTE_CELL.exec(cells[index] as string) as RegExpExecArray;
    const row: TableRoute = { method: m[1] as string, path: m[2] as string, section, cells };
    if (index > 0) row.name = cells[0] as string;
    rows.push(row);
  }
  if (rows.length === 0) throw new Error('No table row with a "METHOD /route" cell found in the spec');
  return rows;
}

/** Rows of the Authentication table: route → roles. */
export function authenticationTable(spec: string): { route: SpecRoute; roles: string[] }[] {
  const rows = tableRoutes(spec).filter((r) => r.section === 'Authentication');
  if (rows.length === 0) throw new Error('No row found in the Authentication table of the spec');
  return rows.map((r) => ({
    route: { method: r.method, path: r.path },
    roles: (r.cells[1] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  }));
}

/** Every `METHOD /route` written anywhere in the spec: bullets, tables, headings and prose. */
export function mentionedRoutes(spec: string): SpecRoute[] {
  return [...spec.matchAll(ROUTE_ANYWHERE)].map((m) => ({ method: m[1] as string, path: (m[2] as string).replace(/\/$/, '') }));
}

/** Routes named in the prose of a numbered operation (not in its bullet), such as the two further routes of `POST /gw/ssh/send_command`. */
export function proseRoutes(spec: string, operation: number): SpecRoute[] {
  const section = spec.split(/^(?=### )/m).find((s) => s.startsWith(`### ${operation}. `));
  if (section === undefined) throw new Error(`Operation ${operation} not found in the spec`);
  const bullet = numberedOperations(spec).get(operation);
  return [...section.matchAll(ROUTE_ANYWHERE)]
    .map((m) => ({ method: m[1] as string, path: m[2] as string }))
    .filter((r) => !(bullet !== undefined && r.method === bullet.method && r.path === bullet.path));
}

function names(list: string): string[] {
  const out: string[] = [];
  for (const sentence of list.replace(/\([^)]*\)/g, '').split(/\.\s+|\.$/)) {
    const body = sentence.replace(/^[^:]*:\s*/, '');
    for (const item of body.split(/,|\band\b/)) {
      const n = item.trim();
      if (n.length === 0) continue;
      if (!/^[A-Za-z][A-Za-z0-9]*$/.test(n))
        throw new Error(`Unexpected operation name "${n}" while parsing the list "${sentence.trim()}"`);
      out.push(n);
    }
  }
  return out;
}

/** Names of the manual workflow tasks (`/mop/task/<name>`). */
export function manualTasks(spec: string): string[] {
  const m = /Manual workflow tasks, each with route \/mop\/task\/<name>: ([^\n]+?)\. HTTP method/.exec(spec);
  if (m === null) throw new Error('The list of manual workflow tasks (/mop/task/<name>) was not found in the spec');
  return names(m[1] as string);
}

/** Names of the gateway methods listed as having no HTTP route. */
export function busOnlyGatewayMethods(spec: string): string[] {
  const start = spec.indexOf('The following gateway methods have no HTTP route');
  if (start < 0) throw new Error('The list of gateway methods with no HTTP route was not found in the spec');
  const lines = spec.slice(start).split('\n').slice(1);
  const result: string[] = [];
  for (const line of lines) {
    if (line.trim() === '' && result.length === 0) continue;
    if (!line.startsWith('- ')) break;
    result.push(...names(line.slice(2)));
  }
  if (result.length === 0) throw new Error('The list of gateway methods with no HTTP route is empty');
  return result;
}
