import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/** `/external-links`: create, list, get, update, delete through HTTP; bad input named, conflicts 409. */

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
});

type Link = {
  _id: string;
  name: string;
  address: string;
  description: string;
  _meta: { created: string; updated: string; createdBy: string; updatedBy: string };
};
type Failure = { code: string; message: string; details?: { member: string }[] };

describe('external links', () => {
  it('are created, listed, read, changed and deleted', async () => {
    const created = await platform.http('POST', '/external-links', {
      token,
      body: { name: 'Runbooks', address: 'https://wiki.example.com/runbooks', description: 'what to do at 3am' },
    });
    expect(created.status).toBe(200);
    const link = created.body as Link;
    expect(link).toMatchObject({
      name: 'Runbooks',
      address: 'https://wiki.example.com/runbooks',
      description: 'what to do at 3am',
      _meta: { createdBy: 'admin', updatedBy: 'admin' },
    });
    await platform.http('POST', '/external-links', { token, body: { name: 'Grafana', address: 'http://grafana.example.com:3000/d/net' } });

    const list = await platform.http('GET', '/external-links', { token });
    expect(list.status).toBe(200);
    expect((list.body as { results: Link[]; total: number }).results.map((l) => l.name)).toEqual(['Grafana', 'Runbooks']);
    const filtered = await platform.http('GET', '/external-links?contains=graf&containsField=name', { token });
    expect((filtered.body as { results: Link[] }).results.map((l) => l.name)).toEqual(['Grafana']);

    const got = await platform.http('GET', `/external-links/${link._id}`, { token });
    expect(got.body).toEqual(link);

    const patched = await platform.http('PATCH', `/external-links/${link._id}`, {
      token,
      body: { address: 'https://wiki.example.com/ops' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      _id: link._id,
      name: 'Runbooks',
      address: 'https://wiki.example.com/ops',
      description: 'what to do at 3am',
    });

    const deleted = await platform.http('DELETE', `/external-links/${link._id}`, { token });
    expect(deleted.status).toBe(200);
    expect((await platform.http('GET', `/external-links/${link._id}`, { token })).status).toBe(404);
  });

  it.each([
    ['a javascript: address', { name: 'x', address: 'javascript:alert(1)' }, 'address'],
    ['an ftp address', { name: 'x', address: 'ftp://files.example.com/pub' }, 'address'],
    ['an address with a space in its host', { name: 'x', address: 'http://bad host/' }, 'address'],
    ['an address URL cannot parse', { name: 'x', address: 'http://[not-an-ip/' }, 'address'],
    ['no name', { address: 'https://example.com' }, 'name'],
    ['an unknown member', { name: 'x', address: 'https://example.com', colour: 'red' }, 'colour'],
  ])('refuse %s with 400 naming the member', async (_what, body, member) => {
    const res = await platform.http('POST', '/external-links', { token, body });
    expect(res.status).toBe(400);
    const failure = res.body as Failure;
    expect(failure.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(failure.details ?? failure.message)).toContain(member);
  });

  it('keep names unique (409) on create and on rename, and answer 404 for an unknown id', async () => {
    const a = (await platform.http('POST', '/external-links', { token, body: { name: 'Tickets', address: 'https://tickets.example.com' } }))
      .body as Link;
    await platform.http('POST', '/external-links', { token, body: { name: 'Status', address: 'https://status.example.com' } });
    const again = await platform.http('POST', '/external-links', {
      token,
      body: { name: 'Tickets', address: 'https://other.example.com' },
    });
    expect(again.status).toBe(409);
    expect((again.body as Failure).code).toBe('LINK_ALREADY_EXISTS');
    const rename = await platform.http('PATCH', `/external-links/${a._id}`, { token, body: { name: 'Status' } });
    expect(rename.status).toBe(409);
    expect(((await platform.http('GET', `/external-links/${a._id}`, { token })).body as Link).name).toBe('Tickets');
    const badPatch = await platform.http('PATCH', `/external-links/${a._id}`, { token, body: { address: 'mailto:ops@example.com' } });
    expect(badPatch.status).toBe(400);
    // said in words, not with the pattern that refused it
    expect((badPatch.body as Failure).message).toBe('body.address must be an http or https URL, such as https://wiki.example.com/runbooks');
    expect((await platform.http('PATCH', `/external-links/${a._id}`, { token, body: {} })).status).toBe(400);
    expect((await platform.http('GET', '/external-links/no-such-link', { token })).status).toBe(404);
    expect((await platform.http('PATCH', '/external-links/no-such-link', { token, body: { description: 'x' } })).status).toBe(404);
    expect((await platform.http('DELETE', '/external-links/no-such-link', { token })).status).toBe(404);
  });
});
