import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getOperation, serviceDatabase, validateResponse } from '@nap/contracts';
import type { Tag, TagReference } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createStore } from '@nap/store';
import { eventually } from '@nap/testing';
import { linearWorkflow, userWithRoles } from './helpers';

/**
 * Tags (`/tags/*`): unique names, references to studio documents that exist and that the caller
 * may see, a tag's deletion taking it off every document in one step (finished by the next start
 * when a crash interrupts it), a document's deletion removing its references, roles and audit.
 */

let platform: TestPlatform;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
});

afterAll(async () => {
  await platform.stop();
});

type Answer = { status: number; body: unknown; headers: Headers };

const post = (route: string, body: unknown, token = admin): Promise<Answer> => platform.http('POST', route, { token, body });

async function newTag(name: string, description?: string): Promise<Tag> {
  const res = await post('/tags/create', { data: { name, ...(description === undefined ? {} : { description }) } });
  expect(res.status).toBe(200);
  return res.body as Tag;
}

async function newWorkflow(name: string, extra: Record<string, unknown> = {}): Promise<{ _id: string; name: string }> {
  const res = await post('/automation-studio/automations', { automation: linearWorkflow(name, extra) });
  expect(res.status).toBe(200);
  return (res.body as { created: { _id: string; name: string } }).created;
}

async function tagsOf(refId: string, token = admin): Promise<string[]> {
  const res = await post('/tags/getTagsByReference', { data: { ref_id: refId } }, token);
  expect(res.status).toBe(200);
  return (res.body as Tag[]).map((t) => t.name);
}

/** The error's code and the members its details name. */
function refusal(res: Answer): { status: number; code: unknown; members: unknown[] } {
  const body = res.body as { code?: unknown; details?: unknown };
  const members = Array.isArray(body.details) ? body.details.map((d: { member?: unknown }) => d.member) : [];
  return { status: res.status, code: body.code, members };
}

describe('tags', () => {
  it('are created, listed by name, read by id, renamed and deleted, each answer as the catalog says', async () => {
    const b = await newTag('tags-b', 'second');
    const a = await newTag('tags-a');
    expect(a).toMatchObject({ name: 'tags-a', description: '', createdBy: 'admin', lastUpdatedBy: 'admin' });
    expect(validateResponse(getOperation('studio.createTag'), a)).toEqual([]);

    const all = await platform.http('GET', '/tags/all', { token: admin });
    expect(all.status).toBe(200);
    expect(validateResponse(getOperation('studio.getTags'), all.body)).toEqual([]);
    const names = (all.body as Tag[]).map((t) => t.name).filter((n) => n.startsWith('tags-'));
    expect(names).toEqual(['tags-a', 'tags-b']);

    expect(await post('/tags/get', { id: b._id })).toMatchObject({ status: 200, body: b });

    const renamed = await post('/tags/update', { data: { _id: a._id, name: 'tags-a2' } });
    expect(renamed).toMatchObject({ status: 200, body: { _id: a._id, name: 'tags-a2', description: '', created: a.created } });
    expect((renamed.body as Tag).lastUpdated > a.lastUpdated).toBe(true);
    const record = await platform.auditRecordOf(renamed, admin);
    expect(record).toMatchObject({ operation: 'studio.updateTag', target: { kind: 'tag', id: a._id, name: 'tags-a2' } });
    expect(record.changes).toEqual(expect.arrayContaining([{ member: 'name', before: 'tags-a', after: 'tags-a2' }]));

    const gone = await post('/tags/delete', { _id: a._id });
    expect(gone).toMatchObject({ status: 200, body: { _id: a._id, name: 'tags-a2' } });
    expect(await platform.auditRecordOf(gone, admin)).toMatchObject({
      operation: 'studio.deleteTag',
      target: { kind: 'tag', id: a._id, name: 'tags-a2' },
      changes: expect.arrayContaining([{ member: 'taggedDocuments', before: 0 }]),
    });
    expect(refusal(await post('/tags/get', { id: a._id }))).toMatchObject({ status: 404, code: 'TAG_NOT_FOUND' });
    expect(((await post('/tags/get', { id: a._id })).body as { message: string }).message).toContain(a._id);
  });

  it('audits a creation with what was set', async () => {
    const res = await post('/tags/create', { data: { name: 'tags-audited', description: 'kept' } });
    const tag = res.body as Tag;
    expect(await platform.auditRecordOf(res, admin)).toMatchObject({
      operation: 'studio.createTag',
      target: { kind: 'tag', id: tag._id, name: 'tags-audited' },
      changes: expect.arrayContaining([
        { member: 'name', after: 'tags-audited' },
        { member: 'description', after: 'kept' },
      ]),
    });
  });

  it('have unique names: a second of the name, by creation or rename, is a 409 naming it', async () => {
    const first = await newTag('tags-unique');
    const again = await post('/tags/create', { data: { name: 'tags-unique' } });
    expect(refusal(again)).toMatchObject({ status: 409, code: 'TAG_ALREADY_EXISTS' });
    expect((again.body as { message: string }).message).toContain('"tags-unique"');
    const other = await newTag('tags-unique-2');
    const rename = await post('/tags/update', { data: { _id: other._id, name: first.name } });
    expect(refusal(rename)).toMatchObject({ status: 409, code: 'TAG_ALREADY_EXISTS' });
  });

  it('refuse bad input, naming the offending member', async () => {
    const cases: [string, unknown, string][] = [
      ['/tags/create', { data: { description: 'no name' } }, 'body.data.name'],
      ['/tags/create', { data: { name: '' } }, 'body.data.name'],
      ['/tags/create', { data: { name: 'bell\u0007tag' } }, 'body.data.name'],
      ['/tags/create', { data: { name: 'x', colour: 'red' } }, 'body.data.colour'],
      ['/tags/create', { data: { name: 'x', description: 'd'.repeat(1001) } }, 'body.data.description'],
      ['/tags/create', { data: { name: 'x' }, name: 'x' }, 'body.name'],
      ['/tags/get', {}, 'body.id'],
      ['/tags/delete', { _id: 'x', id: 'x' }, 'body.id'],
      ['/tags/update', { data: { name: 'no id' } }, 'body.data._id'],
      ['/tags/getTagsByReference', { data: {} }, 'body.data.ref_id'],
      ['/tags/createReference', { data: { tag_id: 't', ref_id: 'r', type: 'device' } }, 'body.data.type'],
      ['/tags/handleReferences', { data: { tag_ids: 't', ref_id: 'r', type: 'workflow' } }, 'body.data.tag_ids'],
    ];
    for (const [route, body, member] of cases) {
      const res = await post(route, body);
      expect({ route, body, ...refusal(res) }).toMatchObject({ route, body, status: 400, code: 'VALIDATION_FAILED', members: [member] });
    }
  });

  it('are read by readers and changed only by writers', async () => {
    const operator = await userWithRoles(platform, admin, 'tags-operator', ['operations']);
    expect((await platform.http('GET', '/tags/all', { token: operator.token })).status).toBe(200);
    expect(refusal(await post('/tags/create', { data: { name: 'tags-by-operator' } }, operator.token)).status).toBe(403);
    const tag = await newTag('tags-roles');
    expect((await post('/tags/delete', { _id: tag._id }, operator.token)).status).toBe(403);
    expect((await post('/tags/get', { id: tag._id }, operator.token)).status).toBe(200);
  });
});

describe('tag references', () => {
  it('put a tag on a workflow that exists, once, and answer it by the document', async () => {
    const tag = await newTag('refs-blue');
    const wf = await newWorkflow('refs-wf');
    const res = await post('/tags/createReference', { data: { tag_id: tag._id, ref_id: wf._id, type: 'workflow' } });
    expect(res.status).toBe(200);
    expect(validateResponse(getOperation('studio.createTagReference'), res.body)).toEqual([]);
    const ref = res.body as TagReference;
    expect(ref).toMatchObject({ tag_id: tag._id, ref_id: wf._id, type: 'workflow' });
    expect(await platform.auditRecordOf(res, admin)).toMatchObject({
      operation: 'studio.createTagReference',
      target: { kind: 'workflow', id: wf._id, name: 'refs-wf' },
      changes: [{ member: 'tags', before: [], after: ['refs-blue'] }],
    });
    // again: the same reference, nothing added
    expect(await post('/tags/createReference', { data: { tag_id: tag._id, ref_id: wf._id, type: 'workflow' } })).toMatchObject({
      status: 200,
      body: ref,
    });
    expect(await tagsOf(wf._id)).toEqual(['refs-blue']);
    const refs = await post('/tags/getTagReferences', { data: { ref_ids: [wf._id, 'no-such-document'] } });
    expect(refs).toMatchObject({ status: 200, body: [ref] });
  });

  it('refuse a document or a tag that does not exist, naming it', async () => {
    const tag = await newTag('refs-missing');
    const noDoc = await post('/tags/createReference', { data: { tag_id: tag._id, ref_id: 'no-such-wf', type: 'workflow' } });
    expect(refusal(noDoc)).toMatchObject({ status: 404, code: 'WORKFLOW_NOT_FOUND' });
    expect((noDoc.body as { message: string }).message).toContain('"no-such-wf"');
    const noTr = await post('/tags/createReference', { data: { tag_id: tag._id, ref_id: 'no-such-tr', type: 'transformation' } });
    expect(refusal(noTr)).toMatchObject({ status: 404, code: 'TRANSFORMATION_NOT_FOUND' });
    const wf = await newWorkflow('refs-missing-wf');
    const noTag = await post('/tags/createReference', { data: { tag_id: 'no-such-tag', ref_id: wf._id, type: 'workflow' } });
    expect(refusal(noTag)).toMatchObject({ status: 404, code: 'TAG_NOT_FOUND' });
    expect((noTag.body as { message: string }).message).toContain('"no-such-tag"');
    const someMissing = await post('/tags/handleReferences', {
      data: { tag_ids: [tag._id, 'gone-tag'], ref_id: wf._id, type: 'workflow' },
    });
    expect(refusal(someMissing)).toMatchObject({ status: 404, code: 'TAG_NOT_FOUND' });
    expect((someMissing.body as { message: string }).message).toContain('"gone-tag"');
    expect(await tagsOf(wf._id)).toEqual([]);
  });

  it('are set all at once by handleReferences, and [] takes every tag off', async () => {
    const [red, green, blue] = [await newTag('set-red'), await newTag('set-green'), await newTag('set-blue')];
    const wf = await newWorkflow('set-wf');
    const first = await post('/tags/handleReferences', { data: { tag_ids: [red._id, green._id], ref_id: wf._id, type: 'workflow' } });
    expect(first).toMatchObject({ status: 200, body: true });
    expect(await tagsOf(wf._id)).toEqual(['set-green', 'set-red']);
    const before = (await post('/tags/getTagReferences', { data: { ref_ids: [wf._id] } })).body as TagReference[];
    const second = await post('/tags/handleReferences', { data: { tag_ids: [green._id, blue._id], ref_id: wf._id, type: 'workflow' } });
    expect(second.status).toBe(200);
    expect(await platform.auditRecordOf(second, admin)).toMatchObject({
      operation: 'studio.handleTagReferences',
      target: { kind: 'workflow', id: wf._id, name: 'set-wf' },
    });
    expect(await tagsOf(wf._id)).toEqual(['set-blue', 'set-green']);
    const after = (await post('/tags/getTagReferences', { data: { ref_ids: [wf._id] } })).body as TagReference[];
    // the reference of the tag it kept keeps its id
    expect(after.find((r) => r.tag_id === green._id)?._id).toBe(before.find((r) => r.tag_id === green._id)?._id);
    expect((await post('/tags/handleReferences', { data: { tag_ids: [], ref_id: wf._id, type: 'workflow' } })).status).toBe(200);
    expect(await tagsOf(wf._id)).toEqual([]);
  });

  it('go with their tag: a deleted tag is on no document any more', async () => {
    const tag = await newTag('gone-with-tag');
    const keep = await newTag('stays-on');
    const wf = await newWorkflow('gone-with-tag-wf');
    const tr = await post('/transformations', {
      name: 'gone-with-tag-tr',
      incoming: [],
      outgoing: [],
      steps: [],
      functions: [],
    });
    expect(tr.status).toBe(200);
    const trId = (tr.body as { _id: string })._id;
    await post('/tags/handleReferences', { data: { tag_ids: [tag._id, keep._id], ref_id: wf._id, type: 'workflow' } });
    await post('/tags/createReference', { data: { tag_id: tag._id, ref_id: trId, type: 'transformation' } });
    const deleted = await post('/tags/delete', { _id: tag._id });
    expect(await platform.auditRecordOf(deleted, admin)).toMatchObject({
      changes: expect.arrayContaining([{ member: 'taggedDocuments', before: 2 }]),
    });
    expect(await tagsOf(wf._id)).toEqual(['stays-on']);
    expect(await tagsOf(trId)).toEqual([]);
    const refs = (await post('/tags/getTagReferences', { data: { ref_ids: [wf._id, trId] } })).body as TagReference[];
    expect(refs.map((r) => r.tag_id)).toEqual([keep._id]);
  });

  it('go with their document: a deleted workflow leaves no reference, even for a new one of the same id', async () => {
    const tag = await newTag('doc-gone');
    const wf = await newWorkflow('doc-gone-wf', { _id: 'doc-gone-wf-id' });
    await post('/tags/createReference', { data: { tag_id: tag._id, ref_id: wf._id, type: 'workflow' } });
    expect(await tagsOf(wf._id)).toEqual(['doc-gone']);
    expect((await platform.http('DELETE', `/automation-studio/automations/${wf._id}`, { token: admin })).status).toBe(200);
    expect(await tagsOf(wf._id)).toEqual([]);
    const again = await newWorkflow('doc-gone-wf', { _id: 'doc-gone-wf-id' });
    expect(again._id).toBe('doc-gone-wf-id');
    expect(await tagsOf(again._id)).toEqual([]);
  });

  it('of a workflow shared with other groups are neither read nor written by outsiders', async () => {
    const insider = await userWithRoles(platform, admin, 'tags-insider', ['engineering']);
    const outsider = await userWithRoles(platform, admin, 'tags-outsider', ['engineering']);
    const tag = await newTag('guarded');
    const wf = await newWorkflow('guarded-wf', { groups: [insider.groupId] });
    expect(
      (await post('/tags/createReference', { data: { tag_id: tag._id, ref_id: wf._id, type: 'workflow' } }, insider.token)).status,
    ).toBe(200);
    const write = await post('/tags/createReference', { data: { tag_id: tag._id, ref_id: wf._id, type: 'workflow' } }, outsider.token);
    expect(refusal(write)).toMatchObject({ status: 403, code: 'GROUP_ACCESS_DENIED' });
    const read = await post('/tags/getTagsByReference', { data: { ref_id: wf._id } }, outsider.token);
    expect(refusal(read)).toMatchObject({ status: 403, code: 'GROUP_ACCESS_DENIED' });
    expect((await post('/tags/getTagReferences', { data: { ref_ids: [wf._id] } }, outsider.token)).body).toEqual([]);
    expect(await tagsOf(wf._id, insider.token)).toEqual(['guarded']);
  });
});

type Body = Record<string, unknown>;

describe('what a crash left of tags', () => {
  it('is put right at the next start: a tag deletion finished, references to what is gone removed', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-tags-crash-'));
    try {
      const first = await startTestPlatform({ dataDir });
      let deleting: Tag;
      let kept: Tag;
      let wfId: string;
      try {
        const token = await first.login();
        const made = async (route: string, body: unknown): Promise<Body> => {
          const res = await first.http('POST', route, { token, body });
          expect(res.status).toBe(200);
          return res.body as Body;
        };
        deleting = (await made('/tags/create', { data: { name: 'crash-deleting' } })) as Tag;
        kept = (await made('/tags/create', { data: { name: 'crash-kept' } })) as Tag;
        wfId = ((await made('/automation-studio/automations', { automation: linearWorkflow('crash-wf') })).created as { _id: string })._id;
        await made('/tags/handleReferences', { data: { tag_ids: [deleting._id, kept._id], ref_id: wfId, type: 'workflow' } });
      } finally {
        await first.stop();
      }

      // the crash: a tag deletion begun and not finished; references of a workflow deleted meanwhile and of a tag that is gone
      const store = createStore({ dataDir, dbName: serviceDatabase('studio') });
      await store.collection('tags').updateOne({ _id: deleting._id }, { $set: { deleting: '2026-01-01T00:00:00.000Z' } });
      await store.collection('tagReferences').insertOne({
        _id: 'workflow:deleted-wf',
        ref_id: 'deleted-wf',
        type: 'workflow',
        tags: [{ _id: 'r-deleted', tag_id: kept._id }],
      });
      await store
        .collection('tagReferences')
        .updateOne({ _id: `workflow:${wfId}` }, { $push: { tags: { _id: 'r-orphan', tag_id: 'tag-that-never-was' } } });
      await store.close();

      const second = await startTestPlatform({ dataDir });
      try {
        const token = await second.login();
        // hidden from the first answer on
        const all = await second.http('GET', '/tags/all', { token });
        expect((all.body as Tag[]).map((t) => t.name)).toEqual(['crash-kept']);
        // the repair ends with the deletion: the name is free once it is done
        await eventually(
          'the deletion finished',
          async () => (await second.http('POST', '/tags/create', { token, body: { data: { name: 'crash-deleting' } } })).status === 200,
          { timeoutMs: 20_000 },
        );
      } finally {
        await second.stop();
      }
      const after = createStore({ dataDir, dbName: serviceDatabase('studio') });
      try {
        expect(await after.collection('tags').findOne({ _id: deleting._id })).toBeNull();
        expect(await after.collection('tagReferences').findOne({ _id: 'workflow:deleted-wf' })).toBeNull();
        expect(await after.collection('tagReferences').findOne({ _id: `workflow:${wfId}` })).toMatchObject({
          tags: [expect.objectContaining({ tag_id: kept._id })],
        });
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
