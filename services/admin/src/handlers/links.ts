import type { HandlerMap } from '@nap/bus';
import type { LinkDomain } from '../domain/links';

/** `/external-links*`. */
export function linkHandlers(links: LinkDomain): HandlerMap<'admin'> {
  return {
    createLink: async (input, ctx) => links.create(input.body, ctx.caller.username),
    getLinks: async (input) => links.list(input.query),
    getLink: async (input) => links.get(input.params.linkId),
    updateLink: async (input, ctx) => links.update(input.params.linkId, input.body, ctx.caller.username),
    deleteLink: async (input) => {
      await links.delete(input.params.linkId);
      return { status: 'success', message: `External link "${input.params.linkId}" deleted` };
    },
  };
}
