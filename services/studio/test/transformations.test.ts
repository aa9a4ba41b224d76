import { existsSync } from 'node:fs';
import { getOperation, validateResponse } from '@nap/contracts';
import type { ImportResult, Transformation } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { exampleOf, fixturesAbsent } from '@nap/testing';
import { FIXTURES, fixtureTransformations } from './fixture-transformations';
import type { FixtureTransformation } from './fixture-transformations';
import { hasCallback, toOlderForm } from './older-form';

/**
 * JST transformations through the HTTP interface: the routes, and conformance with the 146 real
 * transformations of ../shared/fixtures/itential-assets (imported as their projects name them,
 * validated, run on inputs made from their own schema examples). Expected outputs of the
 * representative set were written by reading each JST, not by running it.
 */

const present = existsSync(FIXTURES);

interface Member {
  project: string;
  doc: FixtureTransformation['doc'];
}

/** The fixture transformations named as their projects name them (`@<project _id>: <name>`). */
function fixtureMembers(): Member[] {
  return fixtureTransformations().map((t) => ({ project: t.project, doc: { ...t.doc, name: `@${t.project}: ${t.doc.name}` } }));
}

let platform: TestPlatform;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
});

afterAll(async () => {
  await platform.stop();
});

const arg = (n: number) => `/args/${n}/value`;
const upper = {
  name: 'upper-site',
  incoming: [{ $id: 'site', type: 'string' }],
  outgoing: [{ $id: 'label', type: 'string' }],
  steps: [
    { id: 1, type: 'method', library: 'String', method: 'toUpperCase', args: [null] },
    { id: 2, type: 'assign', from: { location: 'incoming', name: 'site', ptr: '' }, to: { location: 'method', name: 1, ptr: arg(0) } },
    { id: 3, type: 'assign', from: { location: 'method', name: 1, ptr: '/return' }, to: { location: 'outgoing', name: 'label', ptr: '' } },
  ],
  functions: [],
};

describe('transformation routes', () => {
  let id: string;

  it('creates from the bare document, answers the stored one, and refuses a second of the same name', async () => {
    const res = await platform.http('POST', '/transformations', { token: admin, body: upper });
    expect(res.status).toBe(200);
    const stored = res.body as Transformation;
    expect(stored).toMatchObject({ name: 'upper-site', createdBy: 'admin', lastUpdatedBy: 'admin', steps: upper.steps });
    expect(validateResponse(getOperation('studio.createTransformation'), stored)).toEqual([]);
    id = stored._id;
    const again = await platform.http('POST', '/transformations', { token: admin, body: upper });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'TRANSFORMATION_ALREADY_EXISTS', message: expect.stringContaining('upper-site') });
  });

  it('refuses an unknown method at save time, naming the step', async () => {
    const bad = { ...upper, name: 'bad', steps: [{ ...upper.steps[0], method: 'toShouting' }, ...upper.steps.slice(1)] };
    const res = await platform.http('POST', '/transformations', { token: admin, body: bad });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'TRANSFORMATION_INVALID',
      message:
        'The transformation "bad" cannot run: step 1 calls String.toShouting, which is not a method of the library at /steps/0 (and 2 more problems)',
      details: [
        { code: 'UNKNOWN_METHOD', path: '/steps/0' },
        { code: 'BAD_ASSIGN', path: '/steps/1/to/name' },
        { code: 'BAD_ASSIGN', path: '/steps/2/from/name' },
      ],
    });
  });

  it('validates without saving: every error and warning with its path', async () => {
    const res = await platform.http('POST', '/transformations/validate', {
      token: admin,
      body: { ...upper, outgoing: [...upper.outgoing, { $id: 'unused' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      isValid: true,
      errors: [],
      warnings: [{ code: 'OUTGOING_UNASSIGNED', message: 'nothing is assigned to outgoing "unused"', path: '/outgoing/1' }],
    });
    const broken = await platform.http('POST', '/transformations/validate', {
      token: admin,
      body: { name: 'x', steps: [{ id: 1, type: 'method', library: 'Math', method: 'nope', args: [] }] },
    });
    expect(broken.body).toEqual({
      isValid: false,
      errors: [{ code: 'UNKNOWN_METHOD', message: 'step 1 calls Math.nope, which is not a method of the library', path: '/steps/0' }],
      warnings: [],
    });
  });

  it('refuses a misspelled member of an incoming schema (it would check nothing), and keeps and warns of any other unknown one', async () => {
    const site = { $id: 'site', type: 'string', minLenght: 3 };
    const typo = {
      ...upper,
      name: 'typo',
      incoming: [site],
      functions: [{ id: 'f', name: 'pad', incoming: [{ $id: 'v', tpye: 'string' }] }],
    };
    const refused = await platform.http('POST', '/transformations', { token: admin, body: typo });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'TRANSFORMATION_INVALID',
      message:
        'The transformation "typo" cannot run: the incoming schema "site" has the member "minLenght", which no schema knows: did you mean "minLength"? at /incoming/0/minLenght (and 1 more problem)',
      details: [
        { code: 'UNKNOWN_SCHEMA_MEMBER', path: '/incoming/0/minLenght' },
        {
          code: 'UNKNOWN_SCHEMA_MEMBER',
          message: 'the incoming schema "v" of function "pad" has the member "tpye", which no schema knows: did you mean "type"?',
          path: '/functions/0/incoming/0/tpye',
        },
      ],
    });
    // nested schemas too, in validation and in imports
    const nested = {
      ...upper,
      name: 'nested',
      incoming: [{ $id: 'site', type: 'object', properties: { host: { type: 'string', Format: 'ipv4' } } }],
    };
    const checked = await platform.http('POST', '/transformations/validate', { token: admin, body: nested });
    expect(checked.body).toMatchObject({
      isValid: false,
      errors: [{ code: 'UNKNOWN_SCHEMA_MEMBER', path: '/incoming/0/properties/host/Format' }],
    });
    const imported = await platform.http('POST', '/transformations/import', { token: admin, body: { transformations: [nested] } });
    expect((imported.body as ImportResult).imported[0]).toMatchObject({ success: false, message: expect.stringContaining('"Format"') });
    // an annotation of the author's own is no keyword misspelled: kept, with a warning
    const annotated = { ...upper, name: 'annotated', incoming: [{ $id: 'site', type: 'string', widget: 'dropdown', 'x-order': 1 }] };
    const kept = await platform.http('POST', '/transformations/validate', { token: admin, body: annotated });
    expect(kept.body).toMatchObject({ isValid: true, warnings: [{ code: 'UNKNOWN_SCHEMA_MEMBER', path: '/incoming/0/widget' }] });
    expect((kept.body as { warnings: unknown[] }).warnings).toHaveLength(1);
  });

  it('checks outgoing schemas too: a misspelled member, and an assign writing a member its schema does not declare', async () => {
    const write = (id: number, name: string, ptr: string) => ({
      id,
      type: 'assign',
      from: { location: 'method', name: 1, ptr: '/return' },
      to: { location: 'outgoing', name, ptr },
    });
    const doc = {
      ...upper,
      name: 'outgoing-typos',
      outgoing: [
        {
          $id: 'device',
          type: 'object',
          properties: { hostname: { type: 'string' } },
          additionalProperties: false,
          requried: ['hostname'],
        },
        { $id: 'open', type: 'object', properties: { hostname: { type: 'string' } }, editable: true },
      ],
      steps: [
        ...upper.steps.slice(0, 2),
        write(3, 'device', '/hostnme'),
        write(4, 'device', '/site'),
        write(5, 'open', '/Hostname'),
        write(6, 'open', '/site'),
      ],
    };
    const checked = await platform.http('POST', '/transformations/validate', { token: admin, body: doc });
    expect(checked.body).toEqual({
      isValid: false,
      errors: [
        {
          code: 'UNKNOWN_SCHEMA_MEMBER',
          message: 'the outgoing schema "device" has the member "requried", which no schema knows: did you mean "required"?',
          path: '/outgoing/0/requried',
        },
        {
          code: 'UNDECLARED_OUTGOING_MEMBER',
          message:
            'assign 3 writes the member "hostnme" into the outgoing schema "device", which does not declare it: did you mean "hostname"?',
          path: '/steps/2/to/ptr',
        },
        {
          code: 'UNDECLARED_OUTGOING_MEMBER',
          message:
            'assign 4 writes the member "site" into the outgoing schema "device", which does not declare it: it allows no other member than "hostname"',
          path: '/steps/3/to/ptr',
        },
      ],
      // an open schema takes other members: a near miss is only a warning, any other member passes
      warnings: [
        {
          code: 'UNDECLARED_OUTGOING_MEMBER',
          message:
            'assign 5 writes the member "Hostname" into the outgoing schema "open", which does not declare it: did you mean "hostname"?',
          path: '/steps/4/to/ptr',
        },
      ],
    });
    const refused = await platform.http('POST', '/transformations', { token: admin, body: doc });
    expect(refused).toMatchObject({ status: 400, body: { code: 'TRANSFORMATION_INVALID' } });
  });

  it('runs by id on { incoming, options }, on the spec route too, where a lone data object is the incoming', async () => {
    const run = await platform.http('POST', `/transformations/${id}`, { token: admin, body: { incoming: { site: 'ams1' } } });
    expect(run).toMatchObject({ status: 200, body: { label: 'AMS1' } });
    const spec = await platform.http('POST', `/automation-studio/json-forms/runTransformation/${id}`, {
      token: admin,
      body: { data: { site: 'fra2' }, options: { extractOutput: true } },
    });
    expect(spec).toMatchObject({ status: 200, body: 'FRA2' });
    const byName = await platform.http('POST', '/automation-studio/json-forms/runTransformation/upper-site', {
      token: admin,
      body: { incoming: { site: 'x' } },
    });
    expect(byName.body).toEqual({ label: 'X' });
    const invalid = await platform.http('POST', `/transformations/${id}`, {
      token: admin,
      body: { incoming: { site: 7 }, options: { validateIncoming: true } },
    });
    expect(invalid).toMatchObject({
      status: 400,
      body: { code: 'TRANSFORMATION_INCOMING_INVALID', message: 'Incoming "site" of transformation "upper-site" must be string' },
    });
    const failed = await platform.http('POST', `/transformations/${id}`, { token: admin, body: { incoming: {} } });
    expect(failed).toMatchObject({
      status: 422,
      body: {
        code: 'TRANSFORMATION_STEP_FAILED',
        message:
          'The transformation failed at step 1 (String.toUpperCase): argument 1 (string) must be a string, not undefined (incoming "site" was not given)',
      },
    });
    // the values sent without their incoming wrapper are refused by name, not run as if none were given
    const bare = await platform.http('POST', `/transformations/${id}`, { token: admin, body: { site: 'ams1' } });
    expect(bare).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        message:
          'The run body has no incoming, and body.site is not a member of it: give the input values in body.incoming ({"incoming": {"site": …}})',
        details: [{ member: 'body.site' }],
      },
    });
    // a member, an option or an incoming value misspelled would run as if it were not given: refused, naming the one meant
    const misspelled = await platform.http('POST', `/transformations/${id}`, {
      token: admin,
      body: { incomming: { site: 'ams1' }, options: { extractOuput: true } },
    });
    expect(misspelled).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        details: [
          { member: 'body.incomming', message: "body.incomming is no member of body (it would be ignored): did you mean 'incoming'?" },
          { member: 'body.options.extractOuput', message: expect.stringContaining("did you mean 'extractOutput'?") },
        ],
      },
    });
    const value = await platform.http('POST', '/automation-studio/json-forms/runTransformation/upper-site', {
      token: admin,
      body: { incoming: { siet: 'ams1' } },
    });
    expect(value).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        message: `body.incoming.siet is no incoming of transformation "upper-site" (it would be ignored): did you mean 'site'?`,
        details: [{ member: 'body.incoming.siet' }],
      },
    });
    // a value no incoming resembles is ignored, as before, and so is one beside the incoming it resembles
    const other = await platform.http('POST', `/transformations/${id}`, {
      token: admin,
      body: { incoming: { site: 'fra1', Site: 'x', origin: 'x' } },
    });
    expect(other).toMatchObject({ status: 200, body: { label: 'FRA1' } });
    const missing = await platform.http('POST', '/automation-studio/json-forms/runTransformation/no-such-jst', {
      token: admin,
      body: { incoming: {} },
    });
    expect(missing).toMatchObject({
      status: 404,
      body: { code: 'TRANSFORMATION_NOT_FOUND', message: 'No transformation with id or name "no-such-jst"' },
    });
  });

  it('answers 400 naming the incoming whose schema cannot check a value, rather than failing inside, when asked to validate', async () => {
    const assign = { location: 'incoming', name: 'a', ptr: '' };
    for (const [name, schema, cause] of [
      ['unresolved ref', { $ref: 'http://127.0.0.1:9/elsewhere.json' }, "can't resolve reference"],
      ['bad pattern', { type: 'string', pattern: '(' }, 'Invalid regular expression'],
    ] as const) {
      const created = await platform.http('POST', '/transformations', {
        token: admin,
        body: {
          name,
          incoming: [{ $id: 'a', ...schema }],
          outgoing: [{ $id: 'b' }],
          steps: [{ id: 1, type: 'assign', from: assign, to: { location: 'outgoing', name: 'b', ptr: '' } }],
        },
      });
      expect(created.status).toBe(200);
      const run = await platform.http('POST', `/transformations/${encodeURIComponent(name)}`, {
        token: admin,
        body: { incoming: { a: 'x' }, options: { validateIncoming: true } },
      });
      expect(run).toMatchObject({
        status: 400,
        body: { code: 'TRANSFORMATION_INVALID', details: [{ code: 'INCOMING_SCHEMA_INVALID', path: '/incoming/0' }] },
      });
      expect((run.body as { message: string }).message).toContain(cause);
      // without the check it runs
      const unchecked = await platform.http('POST', `/transformations/${encodeURIComponent(name)}`, {
        token: admin,
        body: { incoming: { a: 'x' } },
      });
      expect(unchecked).toMatchObject({ status: 200, body: { b: 'x' } });
    }
  });

  it('lists, reads, replaces and deletes', async () => {
    const list = await platform.http('GET', '/transformations?equals=upper-site', { token: admin });
    expect(list.body).toMatchObject({ total: 1, items: [{ _id: id, name: 'upper-site' }] });
    const put = await platform.http('PUT', `/transformations/${id}`, { token: admin, body: { ...upper, description: 'uppercase a site' } });
    expect(put).toMatchObject({ status: 200, body: { _id: id, description: 'uppercase a site', createdBy: 'admin' } });
    expect((await platform.http('GET', `/transformations/${id}`, { token: admin })).body).toMatchObject({
      description: 'uppercase a site',
    });
    expect((await platform.http('DELETE', `/transformations/${id}`, { token: admin })).status).toBe(204);
    expect((await platform.http('GET', `/transformations/${id}`, { token: admin })).status).toBe(404);
    expect((await platform.http('POST', `/transformations/${id}`, { token: admin, body: { incoming: {} } })).status).toBe(404);
  });
});

if (!present) {
  describe('conformance with the 146 real transformations', () => {
    it('did NOT run: the fixtures folder is absent', () => {
      fixturesAbsent(FIXTURES, 'the 146 real JST transformations (imported and run in both their current and 2023.1 forms)');
    });
  });
} else {
  describe('conformance with the 146 real transformations', () => {
    const all = fixtureMembers();
    const byName = (project: string, name: string): Member => {
      const found = all.find((m) => m.project === project && m.doc.name === `@${project}: ${name}`);
      if (!found) throw new Error(`No fixture transformation ${name} in project ${project}`);
      return found;
    };
    const runIt = async (m: Member, incoming: Record<string, unknown>) =>
      platform.http('POST', `/transformations/${m.doc._id}`, { token: admin, body: { incoming } });

    it('imports all 146 as exported (_id and project-qualified name kept), none refused', async () => {
      expect(all).toHaveLength(146);
      for (let i = 0; i < all.length; i += 25) {
        const batch = all.slice(i, i + 25).map((m) => m.doc);
        const res = await platform.http('POST', '/transformations/import', { token: admin, body: { transformations: batch } });
        expect(res.status).toBe(200);
        const body = res.body as ImportResult;
        expect(body.imported.filter((x) => !x.success).map((x) => x.message)).toEqual([]);
        expect(body.imported.map((x) => [(x.created as Transformation)._id, (x.created as Transformation).name])).toEqual(
          batch.map((d) => [d._id, d.name]),
        );
      }
    });

    it('validates all 146 (errors none; warnings allowed)', async () => {
      const invalid: string[] = [];
      const unknownMembers: string[] = [];
      for (const m of all) {
        const res = await platform.http('POST', '/transformations/validate', { token: admin, body: m.doc });
        const body = res.body as { isValid: boolean; errors: unknown[]; warnings: { code: string; path: string }[] };
        if (!body.isValid) invalid.push(`${m.doc.name}: ${JSON.stringify(body.errors)}`);
        // every member their incoming schemas carry is one NAP knows
        for (const w of body.warnings) if (w.code === 'UNKNOWN_SCHEMA_MEMBER') unknownMembers.push(`${m.doc.name}: ${w.path}`);
      }
      expect(invalid).toEqual([]);
      expect(unknownMembers).toEqual([]);
    });

    // Three JSTs read a member that their schema examples leave empty (a component type that names a
    // list, a ReturnStatus with an errors list, a NetBox result with a device): on such data they fail
    // as the JavaScript they are written in would, at the step named; with the member present they run.
    const NEEDS_DATA: Record<string, { step: string; incoming: Record<string, unknown> }> = {
      'Create Error ReturnStatus': {
        step: 'step 8 (Array.push) of function "errorResponse"',
        incoming: { taskName: 'push', response: 'timeout', message: 'failed', ReturnStatus: { errors: [], response: {} } },
      },
      'Convert Manifest Data': {
        step: 'step 5 (Array.push) of function "convertData"',
        incoming: { input: { components: [{ name: 'wf1', type: 'workflow' }] } },
      },
      'Device Onboarding - Kentik - Example': { step: 'step 72 (String.toLowerCase)', incoming: {} },
    };

    it('runs all 146 on inputs made from their own schema examples', async () => {
      const failed: string[] = [];
      for (const m of all) {
        const incoming = Object.fromEntries(m.doc.incoming.map((s) => [s.$id, exampleOf(s)]));
        const res = await runIt(m, incoming);
        const plain = m.doc.name.replace(/^@[0-9a-f]+: /, '');
        const known = NEEDS_DATA[plain];
        if (known) {
          expect(res).toMatchObject({
            status: 422,
            body: { code: 'TRANSFORMATION_STEP_FAILED', message: expect.stringContaining(known.step) },
          });
          continue;
        }
        if (res.status !== 200) failed.push(`${m.doc.name}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      expect(failed).toEqual([]);
    });

    it('runs the three that need data once the member is there', async () => {
      const kentik = all.find((m) => m.doc.name.endsWith(': Device Onboarding - Kentik - Example')) as Member;
      const kentikIncoming = Object.fromEntries(kentik.doc.incoming.map((s) => [s.$id, exampleOf(s)]));
      // the NetBox search result whose first device the JST names in lower case
      NEEDS_DATA['Device Onboarding - Kentik - Example'] = {
        step: '',
        incoming: { ...kentikIncoming, netbox: { response: { count: 1, results: [{ name: 'AMS-EDGE-1' }] } } },
      };
      for (const [name, c] of Object.entries(NEEDS_DATA)) {
        const m = all.find((x) => x.doc.name.endsWith(`: ${name}`)) as Member;
        const res = await runIt(m, c.incoming);
        expect({ name, status: res.status, body: res.body }).toMatchObject({ name, status: 200 });
      }
    });

    // Expected outputs below come from reading each JST's steps (comments say how), not from a run.

    it('Build EC2 Tag Data: a tag from function buildEc2Tags and the first instance id, each wrapped by new Array', async () => {
      const m = byName('66ce026421161b4df2717471', 'Build EC2 Tag Data');
      const res = await runIt(m, {
        vpcName: 'prod',
        launchResponse: { response: { RunInstancesResponse: { instancesSet: { item: [{ instanceId: 'i-1' }, { instanceId: 'i-2' }] } } } },
      });
      // concat("Apache Web Server for ", vpcName) → Value; buildEc2Tags("Name", Value) → { Key, Value }; getIndex(item, 0).instanceId
      expect(res.body).toEqual({ ec2Tags: [{ Key: 'Name', Value: 'Apache Web Server for prod' }], instanceIdArray: ['i-1'] });
    });

    it('Standard Output: a Conditional.switch on "type of reason" picks new String (case 1) or join / stringify (case 2)', async () => {
      const m = byName('66d0da1721161b4df27174d0', 'Standard Output');
      expect((await runIt(m, { success: true, reason: 'default' })).body).toEqual({ success: true, reason: 'default', type: 'string' });
      // case 2: isArray → ternary(true, join(reason, ", "), stringify(reason))
      expect((await runIt(m, { success: false, reason: ['a', 'b'] })).body).toEqual({ success: false, reason: 'a, b', type: 'object' });
    });

    it('Chunk Array: ceil(length / size) empty chunks, filled by a reduce that slices with constantValue1/2', async () => {
      const m = all.find((x) => x.doc.name.endsWith(': Chunk Array')) as Member;
      // new Array(3).fill([]) reduced: accumulator.push(original.slice(i * 2, i * 2 + 2)) from the initial []
      expect((await runIt(m, { originalArray: [1, 2, 3, 4, 5], chunkSize: 2 })).body).toEqual({ splitArray: [[1, 2], [3, 4], [5]] });
    });

    it('Convert CSV to JSON: the first line names the members, each later line is an object (missing cells "")', async () => {
      const m = all.find((x) => x.doc.name.endsWith(': Convert CSV to JSON')) as Member;
      // split on \n, shift the header, map rows: reduce over headers with setProperty(acc, header, index + 1 <= cells ? cell : charAt("0", 1))
      expect((await runIt(m, { csv: 'a,b\n1,2\n3' })).body).toEqual({
        json: [
          { a: '1', b: '2' },
          { a: '3', b: '' },
        ],
      });
    });

    it('Get Prebuilt Details: optional chaining for the bundle name and WorkFlowEngine.query for each artifact type', async () => {
      const m = all.find((x) => x.doc.name.endsWith(': Get Prebuilt Details')) as Member;
      const first = {
        manifest: {
          bundleName: 'bundle-x',
          artifacts: [
            { type: 'workflow', name: 'w1' },
            { type: 'automation', name: 'a1' },
            { type: 'workflow', name: 'w2' },
            { type: 'ac-agenda-job', name: 'j1' },
          ],
        },
      };
      const res = await runIt(m, { prebuilt: { results: [first], total: 1 } });
      // transformation is new Array(0) with polymorphIndex 1: an empty array
      expect(res.body).toEqual({
        bundleName: 'bundle-x',
        discoveryInput: { transformation: [], workflow: ['w1', 'w2'], operationsAutomation: ['a1'], catalogAutomation: ['j1'] },
        prebuilt: first,
      });
    });

    it('Find Segment ID - Alkira: find with constantValue1 = the segment name, then its id', async () => {
      const m = all.find((x) => x.doc.name.endsWith(': Find Segment ID - Alkira')) as Member;
      const segments = {
        response: [
          { id: 1, name: 'GUEST' },
          { id: 2878, name: 'CORP' },
        ],
      };
      expect((await runIt(m, { getSegmentsResult: segments, segmentName: 'CORP' })).body).toEqual({ segmentId: 2878 });
      // no match: find answers undefined, getProperty of it is undefined, so segmentId is left out
      expect((await runIt(m, { getSegmentsResult: segments, segmentName: 'NONE' })).body).toEqual({});
    });

    it('imports the 2023.1 form of the 44 with a callback (thisArg members), and each answers as its current form does', async () => {
      // every document whose older form differs: the 44 with a callback and those with an uncalled callback
      const older = all
        .map((m) => ({ m, doc: toOlderForm(m.doc) }))
        .filter(({ m, doc }) => JSON.stringify(doc.functions) !== JSON.stringify(m.doc.functions));
      expect(older.filter(({ m }) => hasCallback(m.doc))).toHaveLength(44);
      const stored = new Map<string, string>();
      for (let i = 0; i < older.length; i += 25) {
        const batch = older.slice(i, i + 25).map(({ doc }) => {
          const { _id: _kept, ...rest } = doc;
          return { ...rest, name: `${String(doc.name)} (2023.1)` };
        });
        const res = await platform.http('POST', '/transformations/import', { token: admin, body: { transformations: batch } });
        const body = res.body as ImportResult;
        expect(body.imported.filter((x) => !x.success).map((x) => x.message)).toEqual([]);
        for (const x of body.imported) stored.set((x.created as Transformation).name, (x.created as Transformation)._id);
      }
      // the same answer: status and body, but for the request id an error carries
      const answer = (r: { status: number; body: unknown }): string => {
        const { requestId: _request, ...body } = (r.body ?? {}) as Record<string, unknown>;
        return JSON.stringify([r.status, Array.isArray(r.body) || typeof r.body !== 'object' ? r.body : body]);
      };
      const differ: string[] = [];
      for (const { m } of older) {
        const incoming = Object.fromEntries(m.doc.incoming.map((s) => [s.$id, exampleOf(s)]));
        const current = await runIt(m, incoming);
        const id = stored.get(`${m.doc.name} (2023.1)`) as string;
        const old = await platform.http('POST', `/transformations/${id}`, { token: admin, body: { incoming } });
        if (answer(old) !== answer(current)) differ.push(`${m.doc.name}: current ${answer(current)} | 2023.1 ${answer(old)}`);
      }
      expect(differ).toEqual([]);
    });

    it('answers the 2023.1 form of Aggregate Functions for Arrays as the original does (mode frequency, deviation, variance)', async () => {
      const m = all.find((x) => x.doc.name.endsWith(': Aggregate Functions for Arrays')) as Member;
      const { _id: _kept, ...older } = toOlderForm(m.doc);
      const res = await platform.http('POST', '/transformations', { token: admin, body: { ...older, name: 'aggregate (2023.1)' } });
      expect(res.status).toBe(200);
      expect((res.body as { _id: string })._id).toEqual(expect.any(String));
      const run = await platform.http('POST', '/transformations/aggregate (2023.1)', {
        token: admin,
        body: { incoming: { groupedArray: [1, 2, 3] }, options: { extractOutput: true } },
      });
      expect(run).toMatchObject({
        status: 200,
        body: { modeFrequency: 1, standardDeviation: Math.sqrt(2 / 3), variance: 2 / 3, mode: [1, 2, 3], median: 2 },
      });
    });
  });
}

describe('constructors of the original library', () => {
  it('creates and runs a transformation that declares Null.new Null (the F5 BIG-IQ upgrade input, refused before)', async () => {
    const doc = {
      name: 'Create BIG-IQ Update Device Upgrade Input',
      incoming: [{ $id: 'deviceUpgradeTaskDetails', type: 'object' }],
      outgoing: [{ $id: 'updateDeviceUpgradeInput', type: 'object' }],
      steps: [
        { id: 9, type: 'declaration', library: 'Null', method: 'new Null', args: [], view: { row: 3, col: 1 }, context: '#' },
        {
          id: 10,
          type: 'assign',
          from: { location: 'declaration', name: 9, ptr: '/return' },
          to: { location: 'outgoing', name: 'updateDeviceUpgradeInput', ptr: '/obsfuscatedPassword' },
          context: '#',
        },
        {
          id: 11,
          type: 'assign',
          from: { location: 'incoming', name: 'deviceUpgradeTaskDetails', ptr: '/selfLink' },
          to: { location: 'outgoing', name: 'updateDeviceUpgradeInput', ptr: '/selfLink' },
          context: '#',
        },
      ],
      functions: [],
    };
    const created = await platform.http('POST', '/transformations', { token: admin, body: doc });
    expect(created.status).toBe(200);
    const run = await platform.http('POST', `/transformations/${(created.body as Transformation)._id}`, {
      token: admin,
      body: { incoming: { deviceUpgradeTaskDetails: { selfLink: 'https://localhost/mgmt/cm/device/upgrades/4d6d' } } },
    });
    expect(run).toMatchObject({
      status: 200,
      body: { updateDeviceUpgradeInput: { obsfuscatedPassword: null, selfLink: 'https://localhost/mgmt/cm/device/upgrades/4d6d' } },
    });
  });
});

describe('transformations of 2023.1 releases that cannot be translated exactly', () => {
  it('are refused at create and import with 400 TRANSFORMATION_INVALID naming the function and the step', async () => {
    const doc = {
      name: 'older-unnamed-member',
      incoming: [{ $id: 'sites', type: 'array' }],
      outgoing: [{ $id: 'out', type: 'array' }],
      steps: [
        { id: 1, type: 'method', library: 'Array', method: 'map', args: [null, 'ƒ_map_1', 'x'] },
        { id: 2, type: 'assign', from: { location: 'incoming', name: 'sites', ptr: '' }, to: { location: 'method', name: 1, ptr: arg(0) } },
        {
          id: 3,
          type: 'assign',
          from: { location: 'method', name: 1, ptr: '/return' },
          to: { location: 'outgoing', name: 'out', ptr: '' },
        },
      ],
      functions: [
        {
          id: 'ƒ_map_1',
          name: 'ƒ_map_1',
          incoming: [
            { $id: 'currentValue' },
            { $id: 'index' },
            { $id: 'array' },
            { $id: 'thisArg', type: 'object', properties: { region: { type: 'string' } }, isContext: true, isIndexed: true },
          ],
          outgoing: [{ $id: 'return' }],
          steps: [
            { id: 1, type: 'method', library: 'String', method: 'concat', args: [null, null] },
            {
              id: 2,
              type: 'assign',
              from: { location: 'incoming', name: 'currentValue', ptr: '' },
              to: { location: 'method', name: 1, ptr: arg(0) },
            },
            {
              id: 3,
              type: 'assign',
              from: { location: 'incoming', name: 'thisArg', ptr: '/region' },
              to: { location: 'method', name: 1, ptr: arg(1) },
            },
            {
              id: 4,
              type: 'assign',
              from: { location: 'method', name: 1, ptr: '/return' },
              to: { location: 'outgoing', name: 'return', ptr: '' },
            },
          ],
        },
      ],
    };
    const message =
      'function "ƒ_map_1" step 3: reads member "region" of thisArg, which names no argument position (the older form names them <position>_<label>)';
    const res = await platform.http('POST', '/transformations', { token: admin, body: doc });
    expect(res).toMatchObject({
      status: 400,
      body: {
        code: 'TRANSFORMATION_INVALID',
        message: `The transformation "older-unnamed-member" cannot run: ${message} at /functions/0/steps/2/from/ptr`,
        details: [{ code: 'OLDER_FORM_UNTRANSLATABLE', message, path: '/functions/0/steps/2/from/ptr' }],
      },
    });
    const imported = await platform.http('POST', '/transformations/import', { token: admin, body: { transformations: [doc] } });
    expect((imported.body as ImportResult).imported).toMatchObject([{ success: false, message: expect.stringContaining(message) }]);
    const validated = await platform.http('POST', '/transformations/validate', { token: admin, body: doc });
    expect(validated.body).toMatchObject({ isValid: false, errors: [{ code: 'OLDER_FORM_UNTRANSLATABLE', message }] });
  });
});
