import type { Handler } from '@nap/bus';
import { checkUsername, newAccountRecord } from '../domain/accounts';
import { hashPassword } from '../domain/password';
import { checkGroups, viewAccount } from '../steps/accounts';
import { checkPasswordRules } from '../steps/sign-in';
import type { AdminContext } from '../context';
import { refuseGroupsBeyondCaller } from '../steps/delegation';

/** `POST /user-management/accounts`: an account with a username people can tell apart (`checkUsername`), its password hashed (the active profile's password rules met); its groups must exist. */
export function createAccount(svc: AdminContext): Handler<'admin.createAccount'> {
  return async (input, ctx) => {
    const { account } = input.body;
    checkUsername(account.username, 'body.account.username');
    checkPasswordRules(svc, account.password, 'body.account.password');
    const groups = await checkGroups(svc, account.groups ?? [], 'body.account.groups');
    await refuseGroupsBeyondCaller(svc, ctx.caller, groups);
    const record = await svc.accounts.insert(
      newAccountRecord(
        account,
        groups,
        await hashPassword(account.password, svc.scryptCost),
        ctx.caller.username,
        new Date().toISOString(),
      ),
    );
    const data = await viewAccount(svc, record);
    return { status: 'Created', message: `Account "${data.username}" created`, data };
  };
}
