import { getOperation } from '../src/catalog';
import { MAX_SKIP } from '../src/schemas/query';
import { validateRequest } from '../src/validation';

/** The members named by the problems of a request to `operationId`. */
function problemMembers(operationId: string, parts: Parameters<typeof validateRequest>[1]): string[] {
  return validateRequest(getOperation(operationId), parts).map((p) => p.member);
}

describe('list queries of the workflow service and the gateway refuse what they would ignore', () => {
  const closedLists = ['workflow.getJobArchives', 'workflow.getJobMetrics', 'workflow.getTaskMetrics', 'gateway-devices.getKnownHosts'];

  it.each(closedLists)('%s refuses an unknown member, naming it', (id) => {
    expect(problemMembers(id, { query: { equls: 'x' } })).toEqual(['query.equls']);
    expect(problemMembers(id, { query: { bogus: '1', limit: '5' } })).toEqual(['query.bogus']);
  });

  it.each(closedLists)('%s takes the shared list options as before', (id) => {
    const query = { limit: '10', skip: '20', sort: 'x', order: '-1', equals: { workflow: 'w' }, contains: 'a', containsField: 'b' };
    expect(problemMembers(id, { query })).toEqual([]);
    expect(query.limit).toBe(10);
  });
});

describe('skip of a list query is bounded', () => {
  it('refuses a skip past the largest exact integer, on the shared list options and the job query', () => {
    for (const id of ['workflow.getJobArchives', 'workflow.getAutomations', 'workflow.getJobs', 'workflow.getTasks']) {
      expect(problemMembers(id, { query: { skip: '1e20' } })).toEqual(['query.skip']);
      expect(problemMembers(id, { query: { skip: String(MAX_SKIP + 1) } })).toEqual(['query.skip']);
      expect(problemMembers(id, { query: { skip: String(MAX_SKIP) } })).toEqual([]);
    }
  });
});

describe('a run of mop against devices is bounded', () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `core-${i}`);

  it.each(['mop.RunCommandDevices', 'mop.RunCommandTemplate', 'mop.runAnalyticsTemplateDevices', 'mop.RunCommandTemplateSingleCommand'])(
    '%s takes 1,000 devices and refuses 1,001, naming devices',
    (id) => {
      const body = (n: number): Record<string, unknown> => ({
        command: 'show version',
        template: 't',
        analytic_template_name: 'a',
        templateId: 't',
        commandIndex: 0,
        devices: names(n),
      });
      const op = getOperation(id);
      const within = validateRequest(op, { body: body(1000) }).filter((p) => p.member.startsWith('body.devices'));
      expect(within).toEqual([]);
      expect(validateRequest(op, { body: body(1001) }).map((p) => [p.member, p.keyword])).toContainEqual(['body.devices', 'maxItems']);
    },
  );
});

describe('the job list body and a start are bounded', () => {
  it("refuses getJobList's page skip past the largest exact integer, naming it", () => {
    const body = (skip: number) => ({ options: { page: { skip, limit: 10 } } });
    const op = 'workflow.getJobList';
    const params = { status: 'running' };
    expect(problemMembers(op, { params, body: body(MAX_SKIP + 1) })).toEqual(['body.options.page.skip']);
    expect(problemMembers(op, { params, body: body(MAX_SKIP) })).toEqual([]);
  });

  it('gives a job at most 1,000 groups at its start, naming options.groups', () => {
    const groups = (n: number) => Array.from({ length: n }, (_, i) => `group-${i}`);
    for (const id of ['workflow.startJob', 'workflow.startJobWithOptions']) {
      const op = getOperation(id);
      const body = (n: number) => ({ workflow: 'w', options: { groups: groups(n) } });
      const params = { workflow: 'w' };
      expect(validateRequest(op, { params, body: body(1000) }).filter((p) => p.member.startsWith('body.options.groups'))).toEqual([]);
      expect(validateRequest(op, { params, body: body(1001) }).map((p) => [p.member, p.keyword])).toContainEqual([
        'body.options.groups',
        'maxItems',
      ]);
    }
  });
});
