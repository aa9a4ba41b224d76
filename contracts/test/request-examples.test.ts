import { getOperation } from '../src/catalog';
import type { ValidationProblem } from '../src/errors';
import type { SshSendCommandBody } from '../src/schemas';
import type { RequestParts } from '../src/validation';
import { validateRequest } from '../src/validation';
import { CASES, setLeaf, sshSendCommand, without, withExtra } from './operation-examples';

function clone<T>(value: T): T {
  return structuredClone(value);
}

function run(op: string, request: RequestParts): ValidationProblem[] {
  return validateRequest(getOperation(op), clone(request));
}

describe.each(CASES.map((c) => [c.op, c] as const))('%s', (_id, c) => {
  it.each(c.valid.map((v, i) => [i, v] as const))('accepts valid example %i', (_i, request) => {
    expect(run(c.op, request)).toEqual([]);
  });

  if (c.required.length > 0) {
    it.each(c.required)('fails without %s, naming it', (member) => {
      const problems = run(c.op, without(c.valid[0] as RequestParts, member));
      expect(problems).toContainEqual(expect.objectContaining({ member, keyword: 'required' }));
    });
  }

  if (c.closed.length > 0) {
    it.each(c.closed)('refuses an extra member in %s, naming it', (object) => {
      const problems = run(c.op, withExtra(c.valid[0] as RequestParts, object));
      expect(problems).toEqual([expect.objectContaining({ member: `${object}.extra`, keyword: 'additionalProperties' })]);
    });
  }

  if ((c.open ?? []).length > 0) {
    it.each(c.open ?? [])('accepts an extra member in %s, which the spec leaves open', (object) => {
      expect(run(c.op, withExtra(c.valid[0] as RequestParts, object))).toEqual([]);
    });
  }

  if (c.invalid.length > 0) {
    it.each(c.invalid.map((x) => [x.why, x] as const))('refuses: %s', (_why, x) => {
      const problems = run(c.op, x.request);
      expect(problems.map((p) => p.member)).toContain(x.member);
    });
  }
});

describe('request validation details', () => {
  it('words the problems of a missing and an extra member as the error body shows them', () => {
    const op = getOperation('workflow.importCatalogAutomations');
    expect(validateRequest(op, { body: { automations: [] } })).toEqual([
      { member: 'body.options', message: "body must have required property 'options'", keyword: 'required' },
    ]);
    expect(validateRequest(op, { body: { automations: [], options: { extra: 1 } } })).toEqual([
      { member: 'body.options.extra', message: "body.options must NOT have additional property 'extra'", keyword: 'additionalProperties' },
    ]);
  });

  it('lists every problem at once', () => {
    const problems = validateRequest(getOperation('orch-proxy.setLeaf'), { params: {}, body: { set: 'yes', extra: true } });
    expect(problems.map((p) => p.member).sort()).toEqual(
      ['body.dryRun', 'body.extra', 'body.options', 'body.path', 'body.set', 'body.value', 'body.variables', 'params.adapterId'].sort(),
    );
  });

  it('fills in the SSH port 22 and keeps a given port', () => {
    const parts: RequestParts = clone({ body: sshSendCommand });
    expect(validateRequest(getOperation('gateway-devices.sshSendCommand'), parts)).toEqual([]);
    expect((parts.body as SshSendCommandBody).sshSendCommandParameters.connection_options.port).toBe(22);
    const given: RequestParts = {
      body: { sshSendCommandParameters: { host: 'r1', commands: [], connection_options: { device_type: 'linux', port: 2222 } } },
    };
    validateRequest(getOperation('gateway-devices.sshSendCommand'), given);
    expect((given.body as SshSendCommandBody).sshSendCommandParameters.connection_options.port).toBe(2222);
  });

  it('coerces query members to their types, in place', () => {
    const parts: RequestParts = {
      query: { limit: '10', skip: '0', order: '-1', equals: { status: 'running' }, gt: { 'metrics.start_time': '5' } },
    };
    expect(validateRequest(getOperation('workflow.getJobs'), parts)).toEqual([]);
    expect(parts.query).toEqual({ limit: 10, skip: 0, order: -1, equals: { status: 'running' }, gt: { 'metrics.start_time': '5' } });
    const task: RequestParts = { query: { jobId: 'j1', taskId: 't1', download: 'true' } };
    expect(validateRequest(getOperation('mop.reviewSummary'), task)).toEqual([]);
    expect(task.query?.download).toBe(true);
  });

  it('names the alternatives when neither _id nor name is given', () => {
    expect(validateRequest(getOperation('studio.exportForm'), { body: { options: {} } })).toEqual([
      { member: 'body.options', message: "body.options must have required property '_id' or property 'name'", keyword: 'anyOf' },
    ]);
    expect(validateRequest(getOperation('admin.login'), { body: {} })).toEqual([
      { member: 'body', message: "body must have required property 'user' or properties 'username' and 'password'", keyword: 'anyOf' },
    ]);
  });

  it('treats a missing body as an empty one and reports what it lacks', () => {
    const parts: RequestParts = {};
    expect(validateRequest(getOperation('workflow.startJobWithOptions'), parts).map((p) => p.member)).toEqual([
      'params.workflow',
      'body.options',
    ]);
    expect(parts.body).toEqual({});
  });

  it('names the allowed values of an enum', () => {
    const [problem] = validateRequest(getOperation('orch-proxy.setLeaf'), {
      params: { adapterId: 'r1' },
      body: { ...setLeaf, options: 'later' },
    });
    expect(problem?.message).toBe("body.options must be one of 'outformat', 'async', 'sync', 'no_overwrite', 'staging', 'dryrun'");
  });

  it('says what a value of a format looks like', () => {
    const [problem] = validateRequest(getOperation('admin.getAudit'), { query: { since: 'yesterday' } });
    expect(problem).toMatchObject({
      member: 'query.since',
      message: 'query.since must be an ISO 8601 date and time with its offset, such as 2026-12-01T09:30:00Z',
    });
  });

  it('says what a value of a pattern looks like, not the regular expression', () => {
    const problems = validateRequest(getOperation('gateway-devices.trustHostKey'), {
      params: { hostPort: 'core-1' },
      body: { fingerprint: 'ab:cd:ef' },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          member: 'params.hostPort',
          message: 'params.hostPort must be host:port, or [IPv6 address]:port, such as core-1.example.net:22',
        }),
        expect.objectContaining({
          member: 'body.fingerprint',
          message: expect.stringMatching(/^body\.fingerprint must be a SHA-256 fingerprint as/),
        }),
      ]),
    );
    expect(problems.map((p) => p.message).join(' ')).not.toContain('^');
  });

  it('accepts both login body shapes and the form-encoded token request', () => {
    expect(validateRequest(getOperation('admin.login'), { body: { user: { username: 'admin', password: 'pw' } } })).toEqual([]);
    expect(validateRequest(getOperation('admin.login'), { body: { username: 'admin', password: 'pw' } })).toEqual([]);
    expect(validateRequest(getOperation('admin.login'), { body: { user: { username: 'admin' } } }).map((p) => p.member)).toEqual([
      'body.user.password',
    ]);
    const token = getOperation('admin.oauthToken');
    expect(validateRequest(token, { body: { grant_type: 'client_credentials', client_id: 'ci', client_secret: 's' } })).toEqual([]);
    expect(validateRequest(token, { body: { grant_type: 'password', client_id: 'ci', client_secret: 's' } }).map((p) => p.member)).toEqual([
      'body.grant_type',
    ]);
  });

  it('requires at least one job id to cancel', () => {
    const op = getOperation('workflow.cancelJobs');
    expect(validateRequest(op, { body: { jobIds: ['j1'] } })).toEqual([]);
    expect(validateRequest(op, { body: { jobIds: [] } }).map((p) => p.member)).toEqual(['body.jobIds']);
  });
});
