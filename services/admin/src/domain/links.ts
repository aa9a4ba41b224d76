import type { BodyOf } from '@nap/contracts';
import type { LinkRecord } from '../store/links';
import { invalidMember } from './validation-error';

/**
 * External links: named http(s) addresses operators keep at hand (runbooks, dashboards). Names are
 * unique; the address is checked as a URL beyond the schema's pattern (`new URL` must parse it and
 * its protocol must be http or https).
 */

type LinkInput = BodyOf<'admin.createLink'>;
type LinkPatch = BodyOf<'admin.updateLink'>;

/** A new link as stored; its address checked. */
export function newLinkRecord(input: LinkInput, by: string, now: string): Omit<LinkRecord, '_id'> {
  checkAddress(input.address);
  return {
    name: input.name,
    address: input.address,
    description: input.description ?? '',
    _meta: { created: now, updated: now, createdBy: by, updatedBy: by },
  };
}

/** The members a patch sets, with who changed the link and when; its address checked. */
export function linkChanges(patch: LinkPatch, by: string, now: string): Record<string, unknown> {
  if (patch.address !== undefined) checkAddress(patch.address);
  const set: Record<string, unknown> = { '_meta.updated': now, '_meta.updatedBy': by };
  for (const member of ['name', 'address', 'description'] as const) if (patch[member] !== undefined) set[member] = patch[member];
  return set;
}

/** The schema's pattern lets through what `URL` cannot parse (`http://a b`, `http://[x`); this refuses it, naming the member. */
function checkAddress(address: string): void {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw invalidMember('body.address', `"${address}" is not a URL; give an http or https address`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidMember('body.address', `must be an http or https URL, not ${url.protocol}`);
}
