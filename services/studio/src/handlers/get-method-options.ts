import type { Handler } from '@nap/bus';
import { CATALOG } from '@nap/contracts';
import type { Caller } from '@nap/contracts';

/** One REST call a JSON form can make. */
export interface MethodOption {
  name: string;
  /** Owning service. */
  app: string;
  path: string;
  method: string;
}

function mayCall(caller: Caller, roles: readonly string[]): boolean {
  return roles.some((r) => (caller.roles as readonly string[]).includes(r));
}

/** `GET /automation-studio/json-forms/method-options`: the HTTP routes of the catalog the caller may call. */
export function getMethodOptions(): Handler {
  return async (input): Promise<MethodOption[]> =>
    CATALOG.filter((op) => op.http !== undefined && op.auth !== 'public' && mayCall(input.caller, op.roles))
      .map((op) => ({ name: op.name, app: op.service, path: op.http?.path ?? '', method: op.http?.method ?? '' }))
      .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}
