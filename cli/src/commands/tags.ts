import type { Context } from '../context';
import { CliError, EXIT, usage } from '../errors';
import type { Client } from '../http/client';
import { table } from '../output/format';
import type { Doc } from '../resources/documents';
import { itemsOf, str } from '../resources/documents';
import { mustFind } from '../resources/lookup';
import { label, resourceOf } from './assets';
import { sent } from './in-place';

/*
 * `nap tags`: the tags of a studio document, and putting tags on it or taking them off. A tag goes
 * on a workflow, a transformation, a studio template or a form, by the document's id and its kind
 * (`type` of a tag reference); tags are named by name (or id), as `nap get tags` lists them.
 */

/** The resources a tag can be put on, and the `type` a tag reference gives each. */
const TAGGABLE: Readonly<Record<string, string>> = {
  workflows: 'workflow',
  transformations: 'transformation',
  templates: 'template',
  forms: 'jsonForm',
};

interface Tagged {
  /** `workflow "name" (id)`, for people. */
  label: string;
  refId: string;
  type: string;
}

/** The document a resource word and a name (or id) mean, as a tag reference addresses it. */
async function documentOf(client: Client, word: string, name: string): Promise<Tagged> {
  const def = resourceOf(word);
  const type = TAGGABLE[def.plural];
  if (type === undefined) throw usage(`tags go on workflows, transformations, templates and forms, not on ${def.plural}`);
  const found = await mustFind(client, def, name);
  if (found.id === undefined) throw new CliError(`${label(def, found.doc)} has no id to tag it by`, EXIT.FAILED);
  return { label: label(def, found.doc), refId: found.id, type };
}

/** The tags on a document, by name. */
async function tagsOf(client: Client, doc: Tagged): Promise<Doc[]> {
  const res = await sent(
    client,
    { method: 'POST', path: '/tags/getTagsByReference', json: { data: { ref_id: doc.refId } } },
    `the tags of ${doc.label}`,
  );
  return itemsOf(res.body);
}

/**
 * The tags names (or ids) mean, every one checked before anything is written: names that no tag
 * has are said together (exit 1).
 */
async function tagsNamed(client: Client, names: readonly string[]): Promise<Doc[]> {
  const res = await client.request({ method: 'GET', path: '/tags/all' });
  const all = itemsOf(res.body);
  const found: Doc[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const tag = all.find((t) => t.name === name) ?? all.find((t) => t._id === name);
    if (tag === undefined) missing.push(name);
    else if (!found.includes(tag)) found.push(tag);
  }
  if (missing.length > 0)
    throw new CliError(
      `${missing.map((m) => `tag "${m}"`).join(', ')} not found on ${client.url}; \`nap get tags\` lists them, \`nap create tag -f FILE\` makes one`,
      EXIT.FAILED,
    );
  return found;
}

function tagTable(ctx: Context, tags: readonly Doc[]): string {
  return table(
    tags,
    [
      { header: 'NAME', value: (t: Doc) => t.name },
      { header: 'DESCRIPTION', value: (t: Doc) => t.description, prose: true },
      { header: 'ID', value: (t: Doc) => t._id },
    ],
    ctx.colors,
    ctx.width,
  );
}

/** `nap tags list <resource> <name>`: the tags on one document. */
export async function listTags(ctx: Context, word: string, name: string): Promise<void> {
  const client = ctx.client();
  const doc = await documentOf(client, word, name);
  const tags = await tagsOf(client, doc);
  ctx.print(tags, () => (tags.length === 0 ? `${doc.label} has no tags\n` : tagTable(ctx, tags)));
}

const tagName = (t: Doc): string => `tag "${str(t.name) ?? String(t._id)}"`;

/**
 * `nap tags add <resource> <name> <tags...>`: the tags put on the document, one reference each
 * (a tag already on it is left as it is). `-o json` prints the document's tags after.
 */
export async function addTags(ctx: Context, word: string, name: string, names: string[]): Promise<void> {
  const client = ctx.client();
  const doc = await documentOf(client, word, name);
  const tags = await tagsNamed(client, names);
  const on = new Set((await tagsOf(client, doc)).map((t) => t._id));
  for (const tag of tags) {
    if (on.has(tag._id)) {
      if (ctx.format === 'human') ctx.out(`${doc.label} already has ${tagName(tag)}`);
      continue;
    }
    await sent(
      client,
      { method: 'POST', path: '/tags/createReference', json: { data: { tag_id: tag._id, ref_id: doc.refId, type: doc.type } } },
      `${tagName(tag)} on ${doc.label}`,
    );
    if (ctx.format === 'human') ctx.out(`${doc.label} tagged "${String(tag.name)}"`);
  }
  if (ctx.format !== 'human') ctx.print(await tagsOf(client, doc), () => '');
}

/**
 * `nap tags remove <resource> <name> <tags...>`: the tags taken off the document. No route takes
 * one tag off: the document's tags are set, all at once, to those it has without these
 * (`POST /tags/handleReferences`).
 */
export async function removeTags(ctx: Context, word: string, name: string, names: string[]): Promise<void> {
  const client = ctx.client();
  const doc = await documentOf(client, word, name);
  const tags = await tagsNamed(client, names);
  const current = await tagsOf(client, doc);
  const gone = new Set(tags.map((t) => t._id));
  const remaining = current.filter((t) => !gone.has(t._id));
  if (remaining.length !== current.length)
    await sent(
      client,
      {
        method: 'POST',
        path: '/tags/handleReferences',
        json: { data: { tag_ids: remaining.map((t) => t._id).filter(isString), ref_id: doc.refId, type: doc.type } },
      },
      `the tags of ${doc.label}`,
    );
  if (ctx.format === 'human') {
    const had = new Set(current.map((t) => t._id));
    for (const tag of tags)
      ctx.out(had.has(tag._id) ? `${doc.label} untagged "${String(tag.name)}"` : `${doc.label} does not have ${tagName(tag)}`);
  } else ctx.print(remaining, () => '');
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
