import type { Handler } from '@nap/bus';
import type { SetLeafResultItem } from '@nap/contracts';
import { JsonRpcSession } from '../clients/jsonrpc-session';
import { connect } from '../context';
import type { OrchProxyContext } from '../context';
import { transactionHandle } from '../domain/jsonrpc';
import { parseVariables, planOf, substitute } from '../domain/set-leaf';

/**
 * `POST /orch_manager/setLeaf/:adapterId`: sets (or deletes) one leaf through NSO's JSON-RPC:
 * login → new_trans → set_value or delete → validate_commit → commit with the flags of `dryRun` and
 * `options` (staging: validate only) → logout. A failed step deletes the transaction before the
 * error is answered.
 */
export function setLeaf(svc: OrchProxyContext): Handler<'orch-proxy.setLeaf'> {
  return async (input, ctx) => {
    const body = input.body;
    const variables = parseVariables(body.variables);
    const path = substitute(body.path, variables, 'body.path');
    const value = substitute(body.value, variables, 'body.value');
    const plan = planOf(body);
    const orchestrator = await connect(svc, ctx, input.params.adapterId);
    const session = new JsonRpcSession(orchestrator);
    await session.login();
    let th: number | undefined;
    try {
      th = transactionHandle(
        await session.call('new_trans', { db: 'running', mode: 'read_write', conf_mode: 'private', tag: 'nap-setLeaf' }),
        orchestrator.adapter.name,
      );
      if (body.set) await session.call('set_value', { th, path, value });
      else await session.call('delete', { th, path });
      await session.call('validate_commit', { th, flags: plan.flags });
      const item: SetLeafResultItem = {
        action: body.set ? 'update' : 'delete',
        path_raw: body.path,
        path_evaluated: path,
        value_raw: body.value,
        value_evaluated: value,
      };
      if (plan.staging && !plan.dryRun) {
        // staging: written and validated, never committed
        await session.call('delete_trans', { th });
        th = undefined;
      } else {
        const result = await session.call('commit', { th, flags: plan.flags });
        th = undefined;
        if (plan.dryRun) item.dry_run = result ?? null;
      }
      return [item];
    } catch (err) {
      if (th !== undefined) await session.tryCall('delete_trans', { th });
      throw err;
    } finally {
      await session.logout();
    }
  };
}
