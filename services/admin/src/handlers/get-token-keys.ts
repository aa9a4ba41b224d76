import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** Bus only: the public key gateways verify tokens with. */
export function getTokenKeys(svc: AdminContext): Handler<'admin.getTokenKeys'> {
  return async () => {
    const signing = await svc.signingKey();
    return { keys: [{ kid: signing.kid, publicKeyPem: signing.publicKeyPem }] };
  };
}
