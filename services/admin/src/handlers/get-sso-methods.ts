import type { Handler } from '@nap/bus';
import { browserMethods } from '../steps/browser-sign-in';
import type { AdminContext } from '../context';

/** `GET /sso/methods`: the enabled browser sign-in methods, for the console's "Sign in with …" buttons. */
export function getSsoMethods(svc: AdminContext): Handler<'admin.getSsoMethods'> {
  return async () => {
    const methods = await browserMethods(svc);
    return {
      results: methods.map((m) => ({ name: m.name, label: m.label, type: m.type === 'saml' ? ('saml' as const) : ('oidc' as const) })),
    };
  };
}
