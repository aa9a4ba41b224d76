import type { Context } from '../context';
import { CliError, EXIT, usage } from '../errors';
import type { Client } from '../http/client';
import { platformMessage } from '../http/client';
import type { Doc } from '../resources/documents';
import { isDoc, unwrap } from '../resources/documents';
import type { Found } from '../resources/lookup';
import { mustFind, routePath } from '../resources/lookup';
import type { ResourceDef, ToggleSpec } from '../resources/registry';
import { RESOURCES } from '../resources/registry';
import { label, resourceOf } from './assets';

/** What `nap enable` and `nap disable` take: the resources the platform can switch on and off. */
export function toggleable(): ResourceDef[] {
  return RESOURCES.filter((r) => r.toggle !== undefined);
}

/**
 * Sets one document's `enabled`: nothing is sent when it is already in that state. Answers the
 * document as it now is (the platform's answer when it changed) and whether it changed.
 */
async function setEnabled(
  client: Client,
  def: ResourceDef,
  spec: ToggleSpec,
  found: Found,
  enabled: boolean,
): Promise<{ doc: Doc; changed: boolean }> {
  if ((found.doc.enabled !== false) === enabled) return { doc: found.doc, changed: false };
  const key = spec.key === 'id' ? found.id : found.name;
  if (key === undefined) throw new CliError(`${label(def, found.doc)} has no ${spec.key} to address it by`, EXIT.FAILED);
  const path = routePath(spec.route, key);
  const res = await client.send({ method: spec.route.method, path, json: spec.body(enabled) });
  if (res.status === 401) throw client.failure({ method: spec.route.method, path }, res);
  if (res.status >= 400) {
    // the platform's reason: a role the account lacks (exit 5), an event trigger whose topic is no event of the platform
    const { code, message } = platformMessage(res.body);
    throw new CliError(
      `${label(def, found.doc)} not ${enabled ? 'enabled' : 'disabled'}: ${message} (${res.status}${code === undefined ? '' : ` ${code}`})`,
      res.status === 403 ? EXIT.AUTH : EXIT.FAILED,
    );
  }
  const answered = unwrap(res.body);
  return { doc: isDoc(answered) ? answered : { ...found.doc, enabled }, changed: true };
}

/**
 * `nap enable|disable <resource> <names...>`: each name (or id) looked up as every command looks
 * one up, then switched. A name that fails (not found, several of that name, refused) is said on
 * stderr and the others are still done; the exit code is then that of the first failure. A
 * refusal of the credentials or roles, or an unreachable platform, ends the command at once: the
 * names after it would fail the same way.
 */
export async function enableCommand(ctx: Context, enabled: boolean, word: string, names: string[]): Promise<void> {
  const verb = enabled ? 'enable' : 'disable';
  const def = resourceOf(word);
  const spec = def.toggle;
  if (spec === undefined) {
    const can = toggleable().map((r) => r.plural);
    throw usage(`nap ${verb} ${def.singular}: ${def.plural} cannot be enabled or disabled; what can: ${can.join(', ')}`);
  }
  const client = ctx.client();
  const done: Doc[] = [];
  const failures: CliError[] = [];
  for (const [at, name] of names.entries()) {
    try {
      const found = await mustFind(client, def, name);
      const { doc, changed } = await setEnabled(client, def, spec, found, enabled);
      done.push(doc);
      if (ctx.format === 'human')
        ctx.out(`${label(def, doc)} ${changed ? '' : 'was already '}${enabled ? 'enabled' : 'disabled'}${spec.after?.(doc) ?? ''}`);
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      const left = names.length - at - 1;
      if (err.exitCode === EXIT.AUTH || err.exitCode === EXIT.UNREACHABLE) {
        if (ctx.format !== 'human' && done.length > 0) ctx.print(done, () => '');
        throw left === 0
          ? err
          : new CliError(`${err.message}; the ${left === 1 ? 'name' : `${left} names`} after it not tried`, err.exitCode, { cause: err });
      }
      if (names.length === 1) throw err;
      ctx.note(`nap: ${err.message}`);
      failures.push(err);
    }
  }
  if (ctx.format !== 'human' && done.length > 0) ctx.print(names.length === 1 ? done[0] : done, () => '');
  const first = failures[0];
  if (first !== undefined)
    throw new CliError(`${failures.length} of ${names.length} ${def.plural} not ${enabled ? 'enabled' : 'disabled'}`, first.exitCode);
}
