import type { HandlerMap } from '@nap/bus';
import type { AdminDomain, AccountPatch, NewAccount } from '../domain/admin';

/** `/user-management/accounts*` and `PATCH /authorization/accounts/:accountId`. */
export function accountHandlers(domain: AdminDomain): HandlerMap {
  return {
    createAccount: async (input: { body: { account: NewAccount } }, ctx) => {
      const data = await domain.createAccount(input.body.account, ctx.caller.username);
      return { status: 'Created', message: `Account "${data.username}" created`, data };
    },
    getAccount: async (input: { params: { accountId: string } }) => domain.getAccount(input.params.accountId),
    getAccounts: async (input: { query: { skip?: number; limit?: number } }) => domain.listAccounts(input.query),
    updateAccount: async (input: { params: { accountId: string }; body: AccountPatch }, ctx) =>
      domain.updateAccount(input.params.accountId, input.body, ctx.caller.username),
    setAccountGroups: async (input: { params: { accountId: string }; body: { groups: string[] } }, ctx) =>
      domain.setAccountGroups(input.params.accountId, input.body.groups, ctx.caller.username),
    setAccountPassword: async (input: { params: { accountId: string }; body: { password: string } }, ctx) => {
      const data = await domain.setAccountPassword(input.params.accountId, input.body.password, ctx.caller.username);
      return { status: 'success', message: `Password of "${data.username}" changed; its sessions are ended`, data };
    },
    deleteAccount: async (input: { params: { accountId: string } }, ctx) => {
      const data = await domain.deleteAccount(input.params.accountId, ctx.caller);
      return { status: 'success', message: `Account "${data.username}" deleted`, data };
    },
  } as HandlerMap;
}
