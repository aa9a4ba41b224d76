import type { Handler } from '@nap/bus';
import { CATALOG } from '@nap/contracts';
import type { Caller, Role } from '@nap/contracts';
import type { StudioContext } from '../context';

function mayCall(caller: Caller, roles: readonly Role[]): boolean {
  return roles.some((r) => caller.roles.includes(r));
}

/** `GET /automation-studio/json-forms/method-options`: the HTTP routes of the catalog the caller may call. */
export function getMethodOptions(_svc: StudioContext): Handler<'studio.getMethodOptions'> {
  return async (input) =>
    CATALOG.filter((op) => op.http !== undefined && op.auth !== 'public' && mayCall(input.caller, op.roles))
      .map((op) => ({ name: op.name, app: op.service, path: op.http?.path ?? '', method: op.http?.method ?? '' }))
      .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}
