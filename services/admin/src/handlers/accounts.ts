import type { HandlerMap } from '@nap/bus';
import type { AdminDomain } from '../domain/admin';

/** `/user-management/accounts*` and `PATCH /authorization/accounts/:accountId`. */
export function accountHandlers(domain: AdminDomain): HandlerMap<'admin'> {
  return {
    createAccount: async (input, ctx) => {
      const data = await domain.createAccount(input.body.account, ctx.caller.username);
      return { status: 'Created', message: `Account "${data.username}" created`, data };
    },
    getAccount: async (input) => domain.getAccount(input.params.accountId),
    getAccounts: async (input) => domain.listAccounts(input.query),
    getAuthorizationAccount: async (input) => domain.getAccount(input.params.accountId),
    getAuthorizationAccounts: async (input) => domain.listAccounts(input.query),
    updateAccount: async (input, ctx) => domain.updateAccount(input.params.accountId, input.body, ctx.caller.username),
    setAccountGroups: async (input, ctx) => domain.setAccountGroups(input.params.accountId, input.body.groups, ctx.caller.username),
    setAccountPassword: async (input, ctx) => {
      const data = await domain.setAccountPassword(input.params.accountId, input.body.password, ctx.caller.username);
      return { status: 'success', message: `Password of "${data.username}" changed; its sessions are ended`, data };
    },
    deleteAccount: async (input, ctx) => {
      const data = await domain.deleteAccount(input.params.accountId, ctx.caller);
      return { status: 'success', message: `Account "${data.username}" deleted`, data };
    },
  };
}
