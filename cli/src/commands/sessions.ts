import { userAgentSummary } from '@nap/contracts/dist/user-agent';
import type { Context } from '../context';
import { CliError, EXIT } from '../errors';
import type { Client } from '../http/client';
import { platformMessage } from '../http/client';
import { table } from '../output/format';
import type { Doc } from '../resources/documents';
import { itemsOf, str } from '../resources/documents';
import type { Found } from '../resources/lookup';
import { mustFind, routePath } from '../resources/lookup';
import { isoTime } from '../resources/registry';
import { label, resourceOf } from './assets';

const SESSIONS = '/user-management/accounts/:accountId/sessions';

async function accountOf(client: Client, name: string): Promise<Found & { id: string }> {
  const found = await mustFind(client, resourceOf('account'), name);
  if (found.id === undefined) throw new CliError(`account "${name}" has no id to address it by`, EXIT.FAILED);
  return { ...found, id: found.id };
}

/** `nap sessions list <account>`: the account's live sessions, newest first (what a token or cookie of it may still use). */
export async function listSessions(ctx: Context, name: string): Promise<void> {
  const client = ctx.client();
  const account = await accountOf(client, name);
  const res = await client.request({ method: 'GET', path: routePath({ method: 'GET', path: SESSIONS }, account.id) });
  const sessions = itemsOf(res.body);
  ctx.print(sessions, () => {
    if (sessions.length === 0) return `${label(resourceOf('account'), account.doc)} has no live session\n`;
    return table(
      sessions,
      [
        { header: 'SESSION', value: (s: Doc) => s.id },
        { header: 'HOW', value: (s: Doc) => s.method },
        { header: 'STARTED', value: (s: Doc) => isoTime(s.created) },
        { header: 'LAST USED', value: (s: Doc) => isoTime(s.lastUsed) },
        { header: 'FROM', value: (s: Doc) => str(s.address) ?? '-' },
        { header: 'CLIENT', value: (s: Doc) => userAgentSummary(str(s.userAgent)) },
      ],
      ctx.colors,
      ctx.width,
    );
  });
}

/**
 * `nap sessions end <account> [sessions...]`: the named sessions of the account end, or every one
 * when none is named; their tokens are refused from the next request on.
 */
export async function endSessions(ctx: Context, name: string, refs: string[]): Promise<void> {
  const client = ctx.client();
  const account = await accountOf(client, name);
  const base = routePath({ method: 'DELETE', path: SESSIONS }, account.id);
  const paths = refs.length === 0 ? [base] : refs.map((ref) => `${base}/${encodeURIComponent(ref)}`);
  const answers: Doc[] = [];
  let failed: CliError | undefined;
  for (const path of paths) {
    const res = await client.send({ method: 'DELETE', path });
    if (res.status === 401) throw client.failure({ method: 'DELETE', path }, res);
    const { code, message } = platformMessage(res.body);
    if (res.status >= 400) {
      const err = new CliError(
        `${message} (${res.status}${code === undefined ? '' : ` ${code}`})`,
        res.status === 403 ? EXIT.AUTH : EXIT.FAILED,
      );
      if (err.exitCode === EXIT.AUTH || paths.length === 1) throw err;
      ctx.note(`nap: ${err.message}`);
      failed ??= err;
      continue;
    }
    answers.push(res.body as Doc);
    if (ctx.format === 'human') ctx.out(message);
  }
  if (ctx.format !== 'human') ctx.print(answers.length === 1 ? answers[0] : answers, () => '');
  if (failed !== undefined) throw new CliError(`${paths.length - answers.length} of ${paths.length} sessions not ended`, failed.exitCode);
}
