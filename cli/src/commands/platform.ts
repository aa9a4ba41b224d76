import type { Context } from '../context';
import { usage } from '../errors';
import { readData } from '../files';
import type { HttpMethod, Query } from '../http/client';
import { pathOf } from '../http/client';
import { statusColor, table } from '../output/format';
import type { Doc } from '../resources/documents';
import { field, isDoc, itemsOf, unwrap } from '../resources/documents';

/** `nap api METHOD PATH`: any route, the answer printed as the platform gave it. */
export async function apiCommand(ctx: Context, method: string, route: string, opts: { data?: string; query?: string[] }): Promise<void> {
  const m = method.toUpperCase() as HttpMethod;
  if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(m))
    throw usage(`nap api ${method}: the method is one of get, post, put, patch, delete`);
  const pathPart = route.startsWith('/') ? route : `/${route}`;
  const [bare, inline] = pathPart.split('?', 2) as [string, string | undefined];
  const query: Query = {};
  const add = (key: string, value: string): void => {
    const prior = query[key];
    query[key] = prior === undefined ? value : [...(Array.isArray(prior) ? (prior as string[]) : [String(prior)]), value];
  };
  if (inline !== undefined) for (const [k, v] of new URLSearchParams(inline)) add(k, v);
  for (const pair of opts.query ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw usage(`--query ${pair}: expected key=value`);
    add(pair.slice(0, eq), pair.slice(eq + 1));
  }
  const json = opts.data === undefined ? undefined : await readData(ctx, opts.data);
  const client = ctx.client();
  const res = await client.request({ method: m, path: bare, query, ...(opts.data === undefined ? {} : { json }) });
  if (typeof res.body === 'string') ctx.out(res.body);
  else ctx.print(res.body, () => `${JSON.stringify(res.body, null, 2)}\n`);
}

/** Bytes as people read sizes: MiB under a GiB, GiB above. */
function size(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib < 1024 ? `${mib.toFixed(mib < 10 ? 1 : 0)} MiB` : `${(mib / 1024).toFixed(1)} GiB`;
}

/** `, 12.3 GiB free of 50.0 GiB (keeps 128 MiB)` for the disk under an embedded store, marked when writes are refused; '' when unknown. */
function diskText(disk: unknown, c: Context['colors']): string {
  if (!isDoc(disk) || typeof disk.freeBytes !== 'number' || typeof disk.totalBytes !== 'number') return '';
  const keeps = typeof disk.minFreeBytes === 'number' && disk.minFreeBytes > 0 ? disk.minFreeBytes : 0;
  const text = `, ${size(disk.freeBytes)} free of ${size(disk.totalBytes)}${keeps > 0 ? ` (keeps ${size(keeps)})` : ''}`;
  return disk.freeBytes < keeps ? `${text} ${c.red('full: writes are refused')}` : text;
}

export async function inspectCommand(ctx: Context, what: string): Promise<void> {
  const client = ctx.client();
  const c = ctx.colors;
  if (what === 'server') {
    const [server, status] = await Promise.all([
      client.request({ method: 'GET', path: '/health/server' }),
      client.request({ method: 'GET', path: '/health/status' }),
    ]);
    const doc = { server: server.body, status: status.body };
    ctx.print(doc, () => {
      const s = isDoc(server.body) ? server.body : {};
      const lines = [
        `${c.bold('URL:')}      ${client.url} (profile ${client.profile.name})`,
        `${c.bold('Version:')}  ${String(s.version ?? '-')}`,
        `${c.bold('Status:')}   ${statusColor(String(s.status ?? '-'), c)}`,
        `${c.bold('Uptime:')}   ${typeof s.uptime === 'number' ? `${Math.round(s.uptime)} s` : '-'}`,
        `${c.bold('Bus:')}      ${String(field(s, 'bus.kind') ?? '-')}`,
        `${c.bold('Store:')}    ${String(field(s, 'store.kind') ?? '-')}${diskText(field(s, 'store.disk'), c)}`,
      ];
      const apps = isDoc(status.body) && Array.isArray(status.body.applications) ? status.body.applications.filter(isDoc) : [];
      if (apps.length > 0)
        lines.push(`${c.bold('Applications:')} ${apps.filter((a) => a.state === 'RUNNING').length} of ${apps.length} running`);
      return `${lines.join('\n')}\n`;
    });
    return;
  }
  if (what === 'applications' || what === 'application' || what === 'apps') {
    const res = await client.request({ method: 'GET', path: '/applications' });
    const apps = itemsOf(res.body);
    ctx.print(apps, () =>
      table(
        apps,
        [
          { header: 'NAME', value: (a: Doc) => field(a, 'data.name') },
          { header: 'STATE', value: (a: Doc) => field(a, 'metadata.state'), color: (t: string) => statusColor(t, c) },
          { header: 'SERVICE', value: (a: Doc) => field(a, 'metadata.service') },
          { header: 'INSTANCES', value: (a: Doc) => (Array.isArray(a.instances) ? a.instances.length : 0) },
          { header: 'LOG LEVEL', value: (a: Doc) => field(a, 'data.loggerProps.log_level') },
        ],
        c,
        ctx.width,
      ),
    );
    return;
  }
  throw usage(`nap inspect ${what}: one of server, applications`);
}

/** The routes of `start|stop|restart application|adapter` (all PUT). */
export const LIFECYCLE_ROUTES = {
  application: { start: '/applications/:name/start', stop: '/applications/:name/stop', restart: '/applications/:name/restart' },
  adapter: { start: '/adapters/:name/start', stop: '/adapters/:name/stop', restart: '/adapters/:name/restart' },
} as const;

/** `start|stop|restart application|adapter NAME`. */
export async function lifecycleCommand(ctx: Context, action: 'start' | 'stop' | 'restart', kind: string, name: string): Promise<void> {
  const k = kind.toLowerCase().replace(/s$/, '');
  if (k !== 'application' && k !== 'adapter') throw usage(`nap ${action} ${kind}: one of application, adapter`);
  const client = ctx.client();
  const res = await ctx.spin(`${action} ${k} ${name}`, () =>
    client.request({ method: 'PUT', path: pathOf(LIFECYCLE_ROUTES[k][action], { name }) }),
  );
  const doc = unwrap(res.body);
  ctx.print(doc, () => {
    const state = field(doc, 'metadata.state') ?? field(doc, 'state');
    return `${action === 'stop' ? 'stopped' : action === 'start' ? 'started' : 'restarted'} ${k} ${name}${state === undefined ? '' : ` (${String(state)})`}\n`;
  });
}
