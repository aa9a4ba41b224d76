import { AppError } from '@nap/contracts';
import { rawReply } from '@nap/bus';
import type { Handler } from '@nap/bus';
import { browserMethodNamed } from '../steps/browser-sign-in';
import type { AdminContext } from '../context';

/** `GET /sso/saml/metadata`: NAP's service provider metadata for a SAML provider, to import into the identity provider. */
export function getSamlMetadata(svc: AdminContext): Handler<'admin.getSamlMetadata'> {
  return async (input) => {
    const method = await browserMethodNamed(svc, input.query.provider, 'query.provider', 'saml');
    if (method.serviceProviderMetadata === undefined)
      throw new AppError('INTERNAL', `Sign-in method "${method.name}" has no service provider metadata`);
    return rawReply(method.serviceProviderMetadata(), 'application/samlmetadata+xml; charset=utf-8');
  };
}
