import { AppError, hasCode } from '@nap/contracts';
import type { BodyOf, Link, ListQueryOptions } from '@nap/contracts';
import { toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';
import { invalidMember } from './validation-error';

/** An external link as stored. */
export type LinkDoc = Link & { _id: string };

/** The collection of external links (its unique name index is declared in `store/collections.ts`). */
export const LINKS_COLLECTION = 'external_links';

type LinkInput = BodyOf<'admin.createLink'>;
type LinkPatch = BodyOf<'admin.updateLink'>;

/**
 * External links: named http(s) addresses operators keep at hand (runbooks, dashboards). Names are
 * unique; the address is checked as a URL beyond the schema's pattern (`new URL` must parse it and
 * its protocol must be http or https).
 */
export class LinkDomain {
  private readonly links: Collection<LinkDoc>;

  constructor(
    store: Store,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {
    this.links = store.collection<LinkDoc>(LINKS_COLLECTION);
  }

  async create(input: LinkInput, by: string): Promise<Link> {
    checkAddress(input.address);
    const at = this.now();
    const doc = {
      name: input.name,
      address: input.address,
      description: input.description ?? '',
      _meta: { created: at, updated: at, createdBy: by, updatedBy: by },
    };
    try {
      return await this.links.insertOne(doc);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw linkExists(input.name, err);
      throw err;
    }
  }

  async get(id: string): Promise<Link> {
    const found = await this.links.findOne({ _id: id });
    if (found === null) throw new AppError('LINK_NOT_FOUND', `No external link with id "${id}"`);
    return found;
  }

  async list(query: ListQueryOptions): Promise<{ results: Link[]; total: number }> {
    const q = toListQuery(query, { filter: ['name', 'address', 'description'], sort: ['name', 'address'], defaultSort: { name: 1 } });
    const [results, total] = await Promise.all([
      this.links.find(q.filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.links.countDocuments(q.filter),
    ]);
    return { results, total };
  }

  async update(id: string, patch: LinkPatch, by: string): Promise<Link> {
    if (patch.address !== undefined) checkAddress(patch.address);
    const set: Record<string, unknown> = { '_meta.updated': this.now(), '_meta.updatedBy': by };
    for (const member of ['name', 'address', 'description'] as const) if (patch[member] !== undefined) set[member] = patch[member];
    let updated: LinkDoc | null;
    try {
      updated = await this.links.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' });
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY') && patch.name !== undefined) throw linkExists(patch.name, err);
      throw err;
    }
    if (updated === null) throw new AppError('LINK_NOT_FOUND', `No external link with id "${id}"`);
    return updated;
  }

  async delete(id: string): Promise<void> {
    if ((await this.links.deleteOne({ _id: id })) === 0) throw new AppError('LINK_NOT_FOUND', `No external link with id "${id}"`);
  }
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

function linkExists(name: string, cause: unknown): AppError {
  return new AppError('LINK_ALREADY_EXISTS', `An external link named "${name}" exists; names are unique`, { cause });
}
