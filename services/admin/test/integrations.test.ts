import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { SECRET_MASK } from '@nap/contracts';
import type { WorkflowDocument } from '@nap/contracts';
import { eventually, task, workflowDocument } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
import type { Edge } from '@nap/testing';
import type { TestPlatform } from '@nap/standalone';
import { startOpenApiPeer } from '@nap/lab';
import type { OpenApiPeer } from '@nap/lab';

/**
 * Integration models from the fixture OpenAPI documents, integrations calling a real HTTP peer
 * (the ServiceNow Table API of the fixtures) from workflow tasks, and the secrets they hold.
 */

const OPENAPI_DIR = path.resolve(__dirname, '../../../../shared/fixtures/itential-assets/openapi');
const FIXTURES_PRESENT = existsSync(OPENAPI_DIR);
const SERVICENOW_TABLE = 'ServiceNow_OpenAPIs_table_latest.json';

let platform: TestPlatform;
let token: string;
let peer: OpenApiPeer;

function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(OPENAPI_DIR, name), 'utf8')) as Record<string, unknown>;
}

beforeAll(async () => {
  if (!FIXTURES_PRESENT) {
    const message = `INTEGRATION TESTS NOT RUN: ${OPENAPI_DIR} is absent; put the shared fixtures beside the repository`;
    if (process.env.CI === 'true') throw new Error(message);
    console.warn(`\n${'!'.repeat(100)}\n${message}\n${'!'.repeat(100)}\n`);
  }
  // the limits of a fresh start: 1 MiB for every route, NAP_DOCUMENT_BODY_LIMIT_BYTES for the model routes
  platform = await startTestPlatform();
  token = await platform.login();
  peer = await startOpenApiPeer();
});

afterAll(async () => {
  await peer?.close();
  await platform?.stop();
});

const run = FIXTURES_PRESENT ? describe : describe.skip;

async function createWorkflow(doc: WorkflowDocument): Promise<void> {
  const res = await platform.http('POST', '/automation-studio/automations', { token, body: { automation: doc } });
  if (res.status !== 200) throw new Error(`Creating workflow failed: ${res.status} ${JSON.stringify(res.body)}`);
}

type Job = {
  _id: string;
  status: string;
  tasks: Record<string, { status: string; pinned?: boolean; variables?: { outgoing?: Record<string, unknown>; error?: unknown } }>;
  variables: Record<string, unknown>;
  pinned?: unknown;
};

async function runJob(name: string, variables: Record<string, unknown> = {}, pinned?: Record<string, unknown>): Promise<Job> {
  const res = await platform.http('POST', `/workflow_engine/startJobWithOptions/${encodeURIComponent(name)}`, {
    token,
    body: { options: { variables, ...(pinned ? { pinned } : {}) } },
  });
  expect(res.status).toBe(200);
  const id = (res.body as Job)._id;
  return eventually(
    `job ${id} of ${name} ending`,
    async () => {
      const job = ((await platform.http('GET', `/operations-manager/jobs/${id}`, { token })).body as { data: Job }).data;
      return ['complete', 'error', 'canceled'].includes(job.status) ? job : undefined;
    },
    { timeoutMs: 20_000 },
  );
}

/** A task of an integration: `method` of app `app`, its result in the outgoing `result`. */
function call(app: string, method: string, incoming: Record<string, unknown>) {
  return task(method, incoming, { result: null }, { app });
}

run('integration models', () => {
  it('imports all six fixture OpenAPI documents (2.0 converted), named <title>:<version>', async () => {
    const ids: string[] = [];
    for (const file of readdirSync(OPENAPI_DIR).sort()) {
      // the document as it is on disk (GitLab's: 2.4 MB, over the 1 MiB of other routes), as curl -d "{\"model\": $(cat file)}" sends it
      const text = readFileSync(path.join(OPENAPI_DIR, file), 'utf8');
      const res = await platform.http('POST', '/integration-models', {
        token,
        body: `{"model": ${text}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect({ file, status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ file, status: 200, body: 'ok' });
      // answered { status: Created, message, data }, as ipctl reads it
      ids.push((res.body as { data: { versionId: string } }).data.versionId);
    }
    expect(ids).toEqual([
      'Cisco ISE Network Device:1.0.0',
      'Cisco PSIRT openVuln API:2.0.1',
      'GitLab Cloud:v4',
      'Infoblox WAPI:1.0.1',
      'ServiceNow Change Management:latest',
      'ServiceNow Table:latest',
    ]);
    const list = await platform.http('GET', '/integration-models?limit=100', { token });
    expect(list.body).toMatchObject({ total: 6 });
    const gitlab = await platform.http('GET', `/integration-models/${encodeURIComponent('GitLab Cloud:v4')}`, { token });
    expect(gitlab.body).toMatchObject({ specification: 'swagger 2.0', app: 'GitLabCloud', methodCount: expect.any(Number) });
    // the document is answered as it was imported
    const exported = await platform.http('GET', `/integration-models/${encodeURIComponent('ServiceNow Table:latest')}/export`, { token });
    expect(exported.body).toEqual(fixture(SERVICENOW_TABLE));
    const dup = await platform.http('POST', '/integration-models', { token, body: { model: fixture(SERVICENOW_TABLE) } });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'INTEGRATION_MODEL_ALREADY_EXISTS' });
  });

  it('keeps the 1 MiB body limit on the routes that do not take documents', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const res = await platform.http('POST', '/integrations', { token, body: { properties: { name: 'big', model: big } } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('limit of 1048576 bytes') });
  });

  describe.each([
    ['Swagger 2.0', { swagger: '2.0' }],
    ['OpenAPI 3.0', { openapi: '3.0.3' }],
    ['OpenAPI 3.1', { openapi: '3.1.0' }],
  ])('a broken %s document', (_form, version) => {
    // responses given as a string, and a path /x/{id} with no parameter id
    const broken = {
      ...version,
      info: { title: `Broken ${Object.values(version)[0]}`, version: '1' },
      paths: {
        '/x/{id}': { get: { operationId: 'getX', responses: { 200: { description: 'ok' } } } },
        '/y': { get: { operationId: 'getY', responses: 'ok' } },
      },
    };
    const findings = [
      { path: '/paths/~1y/get/responses', message: 'must be object' },
      {
        path: '/paths/~1x~1{id}/get',
        message: 'declares no path parameter "id" for {id} of /x/{id}: a parameter with in: path and name: id is missing',
      },
    ];

    it('is refused with 400 and every finding, a JSON pointer and a message each', async () => {
      const res = await platform.http('POST', '/integration-models', { token, body: { model: broken } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INTEGRATION_MODEL_INVALID', details: expect.arrayContaining(findings) });
      expect((res.body as { message: string }).message).toContain('2 findings');
      expect((await platform.http('GET', `/integration-models/${encodeURIComponent(`${broken.info.title}:1`)}`, { token })).status).toBe(
        404,
      );
    });

    it('answers the same findings to PUT /integration-models/validation, storing nothing', async () => {
      const res = await platform.http('PUT', '/integration-models/validation', { token, body: { model: broken } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ valid: false, errors: expect.arrayContaining(findings) });
      expect((res.body as { errors: unknown[] }).errors).toHaveLength(2);
    });
  });

  it("refuses a broken document with the parser's findings, and validates without storing", async () => {
    const broken = {
      openapi: '3.0.3',
      info: { title: 'Broken', version: '1' },
      paths: {
        '/a': { get: { parameters: [{ name: 'q', in: 'query', schema: { type: 'text' } }], responses: { 200: { description: 'ok' } } } },
      },
    };
    const res = await platform.http('POST', '/integration-models', { token, body: { model: broken } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'INTEGRATION_MODEL_INVALID',
      details: expect.arrayContaining([
        { path: '/paths/~1a/get/parameters/0/schema/type', message: 'must be equal to one of the allowed values' },
      ]),
    });
    const check = await platform.http('PUT', '/integration-models/validation', { token, body: { model: broken } });
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({
      valid: false,
      errors: expect.arrayContaining([
        { path: '/paths/~1a/get/parameters/0/schema/type', message: 'must be equal to one of the allowed values' },
      ]),
    });
    const good = await platform.http('PUT', '/integration-models/validation', {
      token,
      body: { model: fixture('Cisco_ISE_OpenAPIs_network_device_3.2.json') },
    });
    expect(good.body).toEqual({ valid: true, errors: [], warnings: [] });
    const noTitle = await platform.http('PUT', '/integration-models/validation', {
      token,
      body: { model: { openapi: '3.0.0', info: { version: '1' }, paths: {} } },
    });
    expect(noTitle.body).toMatchObject({ valid: false, errors: [{ path: '/info/title', message: expect.stringContaining('non-empty') }] });
    expect((await platform.http('GET', '/integration-models/Broken:1', { token })).status).toBe(404);
  });

  it('refuses a document whose $refs expand without bound or chain too deep, and reads no file or URL a $ref names', async () => {
    const model = (title: string, schemas: Record<string, unknown>, root: string) => ({
      openapi: '3.0.3',
      info: { title, version: '1' },
      paths: {
        '/x': {
          post: {
            requestBody: { content: { 'application/json': { schema: { $ref: root } } } },
            responses: { 200: { description: 'ok' } },
          },
        },
      },
      components: { schemas },
    });
    // 40 schemas, each naming the one before twice: a few kilobytes that stand for 2^40 values
    const laughs: Record<string, unknown> = { s0: { type: 'string' } };
    for (let i = 1; i <= 40; i++)
      laughs[`s${i}`] = {
        type: 'object',
        properties: { a: { $ref: `#/components/schemas/s${i - 1}` }, b: { $ref: `#/components/schemas/s${i - 1}` } },
      };
    const chain: Record<string, unknown> = { s20000: { type: 'string' } };
    for (let i = 0; i < 20_000; i++) chain[`s${i}`] = { $ref: `#/components/schemas/s${i + 1}` };
    for (const [doc, message] of [
      [model('Laughs', laughs, '#/components/schemas/s40'), 'expand to more than'],
      [model('Chain', chain, '#/components/schemas/s0'), 'chain more than'],
    ] as const) {
      const res = await platform.http('POST', '/integration-models', { token, body: { model: doc } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'INTEGRATION_MODEL_INVALID',
        details: [{ path: '', message: expect.stringContaining(message) }],
      });
    }
    // external references stay references: nothing is fetched or read
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('{"type":"string"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/schema.json`;
      for (const ref of [url, `${url}#/a`, 'file:///etc/passwd', '/etc/passwd', '../../../../etc/passwd#/x']) {
        const res = await platform.http('PUT', '/integration-models/validation', { token, body: { model: model('External', {}, ref) } });
        expect({ ref, status: res.status, body: JSON.stringify(res.body) }).toMatchObject({
          ref,
          status: 200,
          body: expect.not.stringContaining('root:'),
        });
      }
      expect(hits).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('names 9 of the 11 GitLab methods the fixture workflows call, once the base path is /api', async () => {
    const called = [
      'getV4ProjectsIdMergeRequestsMergeRequestIdVersions',
      'getV4ProjectsIdRepositoryCommitsShaDiff',
      'getV4ProjectsId',
      'getV4ProjectsIdRepositoryBranchesBranch',
      'getV4GroupsIdProjects',
      'postV4Projects',
      'getV4ProjectsIdRepositoryFiles',
      'postV4ProjectsIdRepositoryBranches',
      'postV4ProjectsIdMergeRequests',
      'putV4ProjectsIdVariablesKey',
      'postV4ProjectsIdRepositoryCommits',
    ];
    const res = await platform.http('POST', '/integrations', {
      token,
      body: { properties: { name: 'Gitlab', model: 'GitLab Cloud:v4', properties: { server: { base_path: '/api' } } } },
    });
    expect(res.status).toBe(200);
    // the server defaults to the model's first server (//gitlab.com)
    expect(res.body).toMatchObject({
      data: { properties: { server: { protocol: 'https', host: 'gitlab.com', port: 443, base_path: '/api' } } },
    });
    const model = await platform.http('GET', `/integration-models/${encodeURIComponent('GitLab Cloud:v4')}`, { token });
    const names = new Set((model.body as { methods: { name: string }[] }).methods.map((m) => m.name));
    // the model's own default base path is its server's (none): the integration's /api is what makes the workflows' names
    expect(names.has('getApiV4ProjectsId')).toBe(true);
    const schema = await platform.http('GET', '/schema/integrations/Gitlab', { token });
    expect(schema.body).toMatchObject({ type: 'object', properties: { properties: { type: 'object' } } });
    // calls go to the lab peer (never to gitlab.com): it answers 404 to GitLab paths
    const moved = await platform.http('PUT', '/integrations/Gitlab', {
      token,
      body: { properties: { properties: { server: { protocol: 'http', host: '127.0.0.1', port: peer.port, base_path: '/api' } } } },
    });
    expect(moved.status).toBe(200);
    const tasks: Record<string, ReturnType<typeof call>> = {};
    const edges: Edge[] = [];
    called.forEach((name, i) => {
      tasks[`t${i}`] = call('Gitlab', name, { id: 42, adapter_id: 'Gitlab' });
      // every task fails (an unknown method, missing input, or the peer's 404 to a GitLab path): chain them by error
      edges.push(i === 0 ? ['workflow_start', 't0'] : [`t${i - 1}`, `t${i}`, 'error']);
    });
    edges.push([`t${called.length - 1}`, 'workflow_end', 'error']);
    await createWorkflow(workflowDocument('gitlab-names', tasks, edges));
    const job = await runJob('gitlab-names');
    const unknown = called.filter((_name, i) => String(job.tasks[`t${i}`]?.variables?.error ?? '').startsWith('TASK_METHOD_UNKNOWN'));
    // the document names these {merge_request_iid} and files/{file_path}: the two the rule cannot reach
    expect(unknown).toEqual(['getV4ProjectsIdMergeRequestsMergeRequestIdVersions', 'getV4ProjectsIdRepositoryFiles']);
    expect(job.tasks.t2?.variables?.error).toMatch(/^INTEGRATION_CALL_FAILED: Integration "Gitlab" answered 404/);
    expect(peer.received.map((r) => r.path)).toContain('/api/v4/projects/42');
    expect((await platform.http('DELETE', '/integrations/Gitlab', { token })).status).toBe(200);
  });
});

run('integrations against the lab peer', () => {
  it('creates an integration whose secrets are sealed and never answered, and keeps its model while used', async () => {
    const res = await platform.http('POST', '/integrations', {
      token,
      body: {
        properties: {
          name: 'snow',
          model: 'ServiceNow Table:latest',
          properties: {
            server: { protocol: 'http', host: '127.0.0.1', port: peer.port },
            authentication: { type: 'basic', username: peer.user, password: peer.password },
          },
        },
      },
    });
    expect(res.status).toBe(200);
    // a setting given both beside properties and inside it (ipctl's nesting), differently, is refused by name
    const twice = await platform.http('POST', '/integrations', {
      token,
      body: {
        properties: {
          name: 'snow-twice',
          model: 'ServiceNow Table:latest',
          properties: { timeoutMs: 5000, properties: { timeoutMs: 9000 } },
        },
      },
    });
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ details: [{ member: 'body.properties.properties.properties.timeoutMs' }] });
    expect(res.body).toMatchObject({
      metadata: { isActive: true },
      data: {
        name: 'snow',
        model: 'ServiceNow Table:latest',
        isEncrypted: true,
        properties: { authentication: { type: 'basic', username: peer.user, password: '********' } },
      },
    });
    const all = await platform.http('GET', '/integrations?equalsField=name&equals=snow', { token });
    expect(all.body).toMatchObject({ total: 1, results: [{ data: { name: 'snow' } }] });
    expect(JSON.stringify(all.body)).not.toContain(peer.password);
    // at rest: nothing of the admin store holds the password in clear
    const stored = await platform.stores.get('admin')?.collection('integrations').findOne({ _id: 'snow' });
    expect(JSON.stringify(stored)).not.toContain(peer.password);
    expect((await platform.http('DELETE', `/integration-models/${encodeURIComponent('ServiceNow Table:latest')}`, { token })).status).toBe(
      409,
    );
    expect((await platform.http('PUT', '/integration-models', { token, body: { model: fixture(SERVICENOW_TABLE) } })).status).toBe(409);
    // a masked secret keeps the stored one; a missing required member is named
    const keep = await platform.http('PUT', '/integrations/snow/properties', {
      token,
      body: {
        properties: {
          properties: {
            server: { protocol: 'http', host: '127.0.0.1', port: peer.port },
            authentication: { type: 'basic', username: peer.user, password: '********' },
            timeoutMs: 5000,
          },
        },
      },
    });
    expect(keep.status).toBe(200);
    const bad = await platform.http('PUT', '/integrations/snow', {
      token,
      body: { properties: { properties: { authentication: { type: 'bearer' } } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ details: [{ member: 'body.properties.properties.authentication.token' }] });
  });

  it('a workflow task makes a real call (auth, serialized parameters, body) and branches on the result', async () => {
    await createWorkflow(
      workflowDocument(
        'snow-incident',
        {
          c1: call('snow', 'postApiNowTableTableName', {
            tableName: 'incident',
            sysparmFields: 'sys_id,short_description,urgency',
            body: '$var.job.incident',
          }),
          q2: call('ServiceNowTable', 'getApiNowTableTableName', {
            tableName: 'incident',
            sysparmQuery: 'urgency=2^short_description=core-1 down',
            sysparmLimit: 5,
          }),
          g3: call('snow', 'getApiNowTableTableNameSysId', { tableName: 'incident', sysId: 'no-such-record' }),
          ok: task(
            'newVariable',
            { name: 'branch', value: 'found' },
            { value: null },
            { type: 'operation', summary: 'found', description: '' },
          ),
          nf: task(
            'newVariable',
            { name: 'branch', value: 'missing' },
            { value: null },
            { type: 'operation', summary: 'missing', description: '' },
          ),
        },
        [
          ['workflow_start', 'c1'],
          ['c1', 'q2'],
          ['q2', 'g3'],
          ['g3', 'ok'],
          ['g3', 'nf', 'error'],
          ['ok', 'workflow_end'],
          ['nf', 'workflow_end'],
        ],
      ),
    );
    const before = peer.received.length;
    const job = await runJob('snow-incident', { incident: { short_description: 'core-1 down', urgency: '2' } });
    expect(job.status).toBe('complete');
    expect(job.variables.branch).toBe('missing');
    const created = job.tasks.c1?.variables?.outgoing?.result as {
      status: number;
      body: { result: { sys_id: string; short_description: string } };
    };
    expect(created).toMatchObject({
      // the lab peer's own answer to its create (ServiceNow's table API answers 201)
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: { result: { short_description: 'core-1 down', urgency: '2', sys_id: expect.any(String) } },
    });
    expect(job.tasks.q2?.variables?.outgoing?.result).toMatchObject({
      status: 200,
      body: { result: [{ sys_id: created.body.result.sys_id }] },
    });
    expect(job.tasks.g3).toMatchObject({
      status: 'error',
      variables: {
        error: expect.stringContaining('INTEGRATION_CALL_FAILED'),
        outgoing: { result: { status: 404, body: { error: { message: 'No Record found' } } } },
      },
    });
    const seen = peer.received.slice(before);
    const basic = `Basic ${Buffer.from(`${peer.user}:${peer.password}`).toString('base64')}`;
    expect(seen.map((r) => [r.method, r.path, r.query, r.headers.authorization])).toEqual([
      ['POST', '/api/now/table/incident', 'sysparm_fields=sys_id%2Cshort_description%2Curgency', basic],
      ['GET', '/api/now/table/incident', 'sysparm_query=urgency%3D2%5Eshort_description%3Dcore-1%20down&sysparm_limit=5', basic],
      ['GET', '/api/now/table/incident/no-such-record', '', basic],
    ]);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ short_description: 'core-1 down', urgency: '2' });
    expect(seen[0]?.headers['content-type']).toBe('application/json');
  });

  it('refuses bad task input before sending anything, naming the variable', async () => {
    await createWorkflow(
      workflowDocument('snow-bad-input', { b1: call('snow', 'getApiNowTableTableName', { sysparmLimit: 5 }) }, [
        ['workflow_start', 'b1'],
        ['b1', 'workflow_end'],
        ['b1', 'workflow_end', 'error'],
      ]),
    );
    const before = peer.received.length;
    const job = await runJob('snow-bad-input');
    expect(String(job.tasks.b1?.variables?.error)).toBe(
      'TASK_INPUT_INVALID: snow.getApiNowTableTableName: incoming.tableName is required (path parameter "tableName")',
    );
    expect(peer.received.length).toBe(before);
  });

  it('fetches an OAuth 2 client-credentials token once and uses it until it expires', async () => {
    const created = await platform.http('POST', '/integrations', {
      token,
      body: {
        properties: {
          name: 'snow-oauth',
          model: 'ServiceNow Table:latest',
          properties: {
            server: { protocol: 'http', host: '127.0.0.1', port: peer.port },
            authentication: {
              type: 'oauthClientCredentials',
              token_url: `${peer.url}/oauth_token.do`,
              client_id: peer.clientId,
              client_secret: peer.clientSecret,
            },
          },
        },
      },
    });
    expect(created.status).toBe(200);
    expect(JSON.stringify(created.body)).not.toContain(peer.clientSecret);
    await createWorkflow(
      workflowDocument(
        'snow-oauth-twice',
        {
          a1: call('snow-oauth', 'getApiNowTableTableName', { tableName: 'incident' }),
          a2: call('snow-oauth', 'getApiNowTableTableName', { tableName: 'problem' }),
        },
        [
          ['workflow_start', 'a1'],
          ['a1', 'a2'],
          ['a2', 'workflow_end'],
        ],
      ),
    );
    const issued = peer.tokensIssued;
    const job = await runJob('snow-oauth-twice');
    expect(job.status).toBe('complete');
    expect(peer.tokensIssued).toBe(issued + 1);
    expect(peer.received.at(-1)?.headers.authorization).toMatch(/^Bearer [0-9a-f-]{36}$/);
  });

  it("keeps the integration's credentials out of a failed task that the system's answer echoes them to: the job as stored holds them masked", async () => {
    const user = 'echo-user';
    const password = 'Echoed pa55/w@rd+"x';
    const basic = Buffer.from(`${user}:${password}`).toString('base64');
    // a system that repeats the credentials it was sent in its refusal: decoded in the body, as sent in a header
    const echo = createServer((req, res) => {
      const sent = req.headers.authorization ?? '';
      const decoded = Buffer.from(sent.replace(/^Basic /, ''), 'base64').toString('utf8');
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Basic realm="you sent ${sent}"` });
      res.end(JSON.stringify({ error: { message: `The credentials ${decoded} are refused`, detail: `Authorization: ${sent}` } }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const created = await platform.http('POST', '/integrations', {
        token,
        body: {
          properties: {
            name: 'snow-echo',
            model: 'ServiceNow Table:latest',
            properties: {
              server: { protocol: 'http', host: '127.0.0.1', port: (echo.address() as AddressInfo).port },
              authentication: { type: 'basic', username: user, password },
            },
          },
        },
      });
      expect(created.status).toBe(200);
      await createWorkflow(
        workflowDocument('snow-echo', { e1: call('snow-echo', 'getApiNowTableTableName', { tableName: 'incident' }) }, [
          ['workflow_start', 'e1'],
          ['e1', 'workflow_end'],
          ['e1', 'workflow_end', 'error'],
        ]),
      );
      const job = await runJob('snow-echo');
      expect(job.tasks.e1).toMatchObject({
        status: 'error',
        variables: { error: expect.stringContaining('INTEGRATION_CALL_FAILED'), outgoing: { result: { status: 401 } } },
      });
      const stored = await platform.stores.get('workflow')?.collection('jobs').findOne({ _id: job._id });
      const text = JSON.stringify(stored);
      const forms = { plain: password, json: JSON.stringify(password).slice(1, -1), basic };
      expect(Object.entries(forms).filter(([, form]) => text.includes(form))).toEqual([]);
      // the answer still says what happened
      expect(text).toContain('The credentials echo-user:******** are refused');
    } finally {
      echo.closeAllConnections();
      await new Promise((resolve) => echo.close(resolve));
    }
  });

  it("masks an OAuth integration's client secret and the token fetched with it when the system echoes them: the job as stored holds them masked", async () => {
    const clientSecret = 'oauth-Secret/9+x "q"';
    const accessToken = `tok-${Date.now().toString(36)}-never-shown`;
    let client = '';
    // a token endpoint, and an API that repeats the bearer token it was sent and the client it was issued to
    const echo = createServer((req, res) => {
      if (req.url === '/oauth/token') {
        client = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: accessToken, token_type: 'Bearer', expires_in: 3600 }));
        return;
      }
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': `Bearer error="invalid_token" sent="${req.headers.authorization ?? ''}"`,
      });
      res.end(JSON.stringify({ error: { message: `token ${accessToken} of client ${decodeURIComponent(client)} is refused` } }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const port = (echo.address() as AddressInfo).port;
      const created = await platform.http('POST', '/integrations', {
        token,
        body: {
          properties: {
            name: 'snow-oauth-echo',
            model: 'ServiceNow Table:latest',
            properties: {
              server: { protocol: 'http', host: '127.0.0.1', port },
              authentication: {
                type: 'oauthClientCredentials',
                token_url: `http://127.0.0.1:${port}/oauth/token`,
                client_id: 'nap-client',
                client_secret: clientSecret,
              },
            },
          },
        },
      });
      expect(created.status).toBe(200);
      await createWorkflow(
        workflowDocument('snow-oauth-echo', { o1: call('snow-oauth-echo', 'getApiNowTableTableName', { tableName: 'incident' }) }, [
          ['workflow_start', 'o1'],
          ['o1', 'workflow_end'],
          ['o1', 'workflow_end', 'error'],
        ]),
      );
      const job = await runJob('snow-oauth-echo');
      expect(job.tasks.o1).toMatchObject({ status: 'error', variables: { outgoing: { result: { status: 401 } } } });
      const stored = await platform.stores.get('workflow')?.collection('jobs').findOne({ _id: job._id });
      const text = JSON.stringify(stored);
      expect(text).toContain(`token ${SECRET_MASK} of client nap-client:${SECRET_MASK} is refused`);
      const forms = { secret: clientSecret, json: JSON.stringify(clientSecret).slice(1, -1), token: accessToken };
      expect(Object.entries(forms).filter(([, form]) => text.includes(form))).toEqual([]);
    } finally {
      echo.closeAllConnections();
      await new Promise((resolve) => echo.close(resolve));
    }
  });

  it("bounds calls that name no timeout by the active profile's integrationProps.timeout, changed live", async () => {
    // a real HTTP peer that takes the connection and never answers
    const sockets = new Set<Socket>();
    const hang = createServer(() => undefined);
    hang.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const port = (hang.address() as AddressInfo).port;
    try {
      const created = await platform.http('POST', '/integrations', {
        token,
        body: {
          properties: {
            name: 'snow-hang',
            model: 'ServiceNow Table:latest',
            properties: {
              server: { protocol: 'http', host: '127.0.0.1', port },
              authentication: { type: 'basic', username: 'u', password: 'p' },
            },
          },
        },
      });
      expect(created.status).toBe(200);
      await createWorkflow(
        workflowDocument('snow-hang', { h1: call('snow-hang', 'getApiNowTableTableName', { tableName: 'incident' }) }, [
          ['workflow_start', 'h1'],
          ['h1', 'workflow_end'],
          ['h1', 'workflow_end', 'error'],
        ]),
      );
      await platform.http('POST', '/profiles', { token, body: { properties: { id: 'fast-calls', integrationProps: { timeout: 300 } } } });
      const switched = await platform.http('PUT', '/profiles/fast-calls/active', { token });
      expect(switched.body).toMatchObject({ applied: ['integrationProps.timeout'] });
      const job = await runJob('snow-hang');
      expect(String(job.tasks.h1?.variables?.error)).toMatch(/DEVICE_TIMEOUT: .* did not answer .* within 300 ms/);
    } finally {
      await platform.http('PUT', '/profiles/default/active', { token });
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hang.close(resolve));
    }
  });

  it('fails a task of an unknown app or method clearly, and pinned tasks call nothing', async () => {
    await createWorkflow(
      workflowDocument(
        'unknowns',
        { u1: call('NoSuchSystem', 'getThing', {}), u2: call('snow', 'getNoSuchMethod', {}), p3: call('NoSuchSystem', 'getPinned', {}) },
        [
          ['workflow_start', 'u1'],
          ['u1', 'u2', 'error'],
          ['u2', 'p3', 'error'],
          ['p3', 'workflow_end'],
        ],
      ),
    );
    const before = peer.received.length;
    const job = await runJob('unknowns', {}, { 'NoSuchSystem.getPinned': { result: { status: 200, body: { pinned: true } } } });
    expect(job.status).toBe('complete');
    expect(job.tasks.u1?.variables?.error).toMatch(/^TASK_APP_UNKNOWN: No integration or adapter answers to app "NoSuchSystem"/);
    expect(job.tasks.u2?.variables?.error).toMatch(/^TASK_METHOD_UNKNOWN: Integration "snow" .* has no method "getNoSuchMethod"/);
    expect(job.tasks.p3).toMatchObject({
      status: 'complete',
      pinned: true,
      variables: { outgoing: { result: { status: 200, body: { pinned: true } } } },
    });
    expect(job.pinned).toEqual({ 'NoSuchSystem.getPinned': { result: { status: 200, body: { pinned: true } } } });
    expect(peer.received.length).toBe(before);
  });
});
