import type { Static } from '@sinclair/typebox';
import { closed, describedPattern, obj, printableName, str, withId } from './common';

/** An http(s) URL: what an external link's address must be (a refusal says so in words, not with this pattern). */
export const HTTP_URL_PATTERN = describedPattern(
  '^https?://[^\\s/?#]+[^\\s]*$',
  'an http or https URL, such as https://wiki.example.com/runbooks',
);

function address() {
  return str({ minLength: 8, maxLength: 2048, pattern: HTTP_URL_PATTERN, format: 'uri', description: 'an http or https URL' });
}

/** An external link as it is created (`POST /external-links`): name and address required. */
export const linkInputSchema = withId(
  'nap:schemas/link-input',
  closed({ name: printableName('unique link name'), address: address(), description: str({ maxLength: 4096 }) }, ['name', 'address']),
);

/** The members of a link to change (`PATCH /external-links/:linkId`), at least one. */
export const linkPatchSchema = withId(
  'nap:schemas/link-patch',
  closed({ name: printableName('unique link name'), address: address(), description: str({ maxLength: 4096 }) }, [], { minProperties: 1 }),
);

/** An external link: a named address an operator keeps at hand (a runbook, a dashboard, a ticket system), as the original platform keeps it. */
export const linkSchema = withId(
  'nap:schemas/link',
  obj(
    {
      _id: str(),
      name: str(),
      address: str(),
      description: str(),
      _meta: obj({ created: str(), updated: str(), createdBy: str(), updatedBy: str() }, ['created', 'updated']),
    },
    ['_id', 'name', 'address', 'description', '_meta'],
  ),
);
/** An external link. */
export type Link = Static<typeof linkSchema>;
