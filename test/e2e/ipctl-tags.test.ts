import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { task, workflowDocument } from '@nap/testing';
import { expectStatus, ipctlClient, ipctlToken } from '../support/ipctl';
import type { IpctlAnswer } from '../support/ipctl';

/**
 * The tag calls of Itential's command line ipctl (github.com/itential/ipctl, pkg/services/tags.go
 * and internal/runners/tags.go), written as ipctl makes them: JSON both ways, the body its Go code
 * marshals, the status it expects (`expectedStatusCode` 200 on every POST here; 200 for its GET) and
 * the members it decodes into its `Tag` struct (`_id`, `name`, `description`, all strings). The
 * commands: `get tags` (GET /tags/all), `describe tag` (GET /tags/all, then POST /tags/get { id }),
 * `create tag` (POST /tags/create { data: { name, description } }), `delete tag` and `clear tags`
 * (GET /tags/all, then POST /tags/delete { _id }), `copy tag --replace` (POST /tags/delete with the
 * name in `_id`, then create), and the service's GetTagsForReference (POST /tags/getTagsByReference
 * { data: { ref_id } }), here with a workflow tagged as the platform's users tag one
 * (POST /tags/createReference).
 */

let platform: TestPlatform;
let bearer: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  bearer = await ipctlToken(platform.url);
}, 60_000);

afterAll(async () => {
  await platform?.stop();
});

/** One request as ipctl's client sends it, with an OAuth profile's Bearer token; `body` as its Go code marshals it. */
function ipctl(method: 'GET' | 'POST', path: string, body?: unknown): Promise<IpctlAnswer> {
  return ipctlClient(platform.url, () => bearer)(method, path, { body });
}

interface GoTag {
  _id: string;
  name: string;
  description: string;
}

/** What Go's encoding/json makes of a value decoded into ipctl's `Tag`: every member it reads a string (or absent). */
function asTag(value: unknown): GoTag {
  expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
  const v = value as Record<string, unknown>;
  for (const member of ['_id', 'name', 'description']) {
    expect({ member, type: v[member] === undefined ? 'string' : typeof v[member] }).toEqual({ member, type: 'string' });
  }
  return { _id: String(v._id ?? ''), name: String(v.name ?? ''), description: String(v.description ?? '') };
}

/** `[]Tag`: a JSON array of tags (null decodes to an empty slice too, but NAP answers arrays). */
function asTags(value: unknown): GoTag[] {
  expect(Array.isArray(value)).toBe(true);
  return (value as unknown[]).map(asTag);
}

/** TagService.GetAll: GET /tags/all, 200. */
async function getAll(): Promise<GoTag[]> {
  const res = await ipctl('GET', '/tags/all');
  expectStatus(res, 200);
  return asTags(res.body);
}

/** TagService.GetByName: GetAll, the first of that name, then Get (POST /tags/get { id }, 200); "tag not found" when none. */
async function getByName(name: string): Promise<GoTag | 'tag not found'> {
  const found = (await getAll()).find((t) => t.name === name);
  if (found === undefined) return 'tag not found';
  const res = await ipctl('POST', '/tags/get', { id: found._id });
  expectStatus(res, 200);
  return asTag(res.body);
}

/** TagService.Create: POST /tags/create { data: { name, description } } (description "" when the flag is not given), 200. */
async function create(name: string, description = ''): Promise<IpctlAnswer> {
  return ipctl('POST', '/tags/create', { data: { name, description } });
}

/** TagService.Delete: POST /tags/delete { _id }, 200, answer not read. */
async function remove(id: string): Promise<IpctlAnswer> {
  return ipctl('POST', '/tags/delete', { _id: id });
}

describe('ipctl tag commands against NAP', () => {
  it('create tag, get tags, describe tag', async () => {
    const created = await create('netbox-utils', 'All assets related to managing Netbox integration');
    expectStatus(created, 200);
    const tag = asTag(created.body);
    expect(tag).toMatchObject({ name: 'netbox-utils', description: 'All assets related to managing Netbox integration' });
    expect(tag._id).not.toBe('');
    expectStatus(await create('gitlab-utils'), 200);

    // get tags prints the keys name and description of each
    expect((await getAll()).map(({ name, description }) => ({ name, description }))).toEqual([
      { name: 'gitlab-utils', description: '' },
      { name: 'netbox-utils', description: 'All assets related to managing Netbox integration' },
    ]);
    // describe tag
    expect(await getByName('netbox-utils')).toEqual(tag);
    expect(await getByName('no-such-tag')).toBe('tag not found');
  });

  it('create tag with a name already taken: an error ipctl prints (the answer names the tag)', async () => {
    expectStatus(await create('duplicated'), 200);
    const again = await create('duplicated');
    expect(again.status).not.toBe(200);
    expect(again).toMatchObject({ status: 409, body: { code: 'TAG_ALREADY_EXISTS' } });
    expect(JSON.stringify(again.body)).toContain('duplicated');
  });

  it('delete tag and clear tags', async () => {
    expectStatus(await create('to-delete'), 200);
    const found = await getByName('to-delete');
    if (found === 'tag not found') throw new Error('to-delete was not created');
    expectStatus(await remove(found._id), 200);
    expect(await getByName('to-delete')).toBe('tag not found');

    // clear tags: GetAll, then Delete of each id
    const all = await getAll();
    for (const t of all) expectStatus(await remove(t._id), 200);
    expect(await getAll()).toEqual([]);
  });

  it('copy tag --replace: the destination tag is deleted by its name, then created again', async () => {
    expectStatus(await create('copied', 'old'), 200);
    expectStatus(await remove('copied'), 200);
    const res = await create('copied', 'from the source');
    expectStatus(res, 200);
    expect(asTag(res.body)).toMatchObject({ name: 'copied', description: 'from the source' });
  });

  it('GetTagsForReference: the tags of a tagged workflow', async () => {
    const wf = await ipctl('POST', '/automation-studio/automations', {
      automation: workflowDocument('tagged-by-ipctl', { a1: task('newVariable', { name: 'x', value: 1 }) }, [
        ['workflow_start', 'a1'],
        ['a1', 'workflow_end'],
      ]),
    });
    expectStatus(wf, 200);
    const wfId = (wf.body as { created: { _id: string } }).created._id;
    const tag = asTag((await create('on-a-workflow')).body);
    const ref = await ipctl('POST', '/tags/createReference', { data: { tag_id: tag._id, ref_id: wfId, type: 'workflow' } });
    expectStatus(ref, 200);
    expect(ref.body).toMatchObject({ tag_id: tag._id, ref_id: wfId, type: 'workflow' });

    const res = await ipctl('POST', '/tags/getTagsByReference', { data: { ref_id: wfId } });
    expectStatus(res, 200);
    expect(asTags(res.body)).toEqual([tag]);
    const untagged = await ipctl('POST', '/tags/getTagsByReference', { data: { ref_id: 'no-such-document' } });
    expectStatus(untagged, 200);
    expect(asTags(untagged.body)).toEqual([]);
  });
});
