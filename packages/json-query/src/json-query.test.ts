import { runJsonQuery } from './json-query';

describe('runJsonQuery (the query dialect of existing workflows)', () => {
  const data = {
    response: {
      result: [{ _ref: 'network/1' }, { _ref: 'network/2' }],
      data: [
        { status: 'added', name: 'a' },
        { status: 'removed', name: 'b' },
        { status: 'removed', name: 'c' },
      ],
      'package-info': [{ 'major-version': 21 }],
      'versa-tasks.task': { 'versa-tasks.task-status': 'COMPLETED' },
      entry: [{ '@name': 'rule-1' }, { '@name': 'rule-2' }],
      organizations: [{ name: 'acme' }, { id: 3 }, { name: 'globex' }],
    },
    reports: [{ score: '100.00' }, { score: '87.5' }],
    completed: [{ response: [{ status: 'ok' }, { status: 'failed' }] }],
  };

  it.each([
    ['response.result[0]._ref', 'network/1'],
    ['response.result[-1]._ref', 'network/2'],
    ['completed[0].response[*].status', ['ok', 'failed']],
    ['response.entry[].@name', ['rule-1', 'rule-2']],
    ['response[versa-tasks.task][versa-tasks.task-status]', 'COMPLETED'],
    ['response.package-info[0].major-version', 21],
    [
      'response.data[*status=removed]',
      [
        { status: 'removed', name: 'b' },
        { status: 'removed', name: 'c' },
      ],
    ],
    ['response.data[status=removed].name', 'b'],
    ['response.data[*status=removed].name', ['b', 'c']],
    ['reports[*score!=100.00]', [{ score: '87.5' }]],
    ['response.organizations[*name]', ['acme', 'globex']],
    ['', data],
    ['response.nothing.deeper', undefined],
  ])('%s', (query, expected) => {
    expect(runJsonQuery(data, query)).toEqual(expected);
  });

  it('refuses a malformed query, naming it', () => {
    expect(() => runJsonQuery(data, 'response[0')).toThrow('response[0');
    expect(() => runJsonQuery(data, 'a..b . ')).not.toThrow();
  });

  it('does not read inherited members', () => {
    expect(runJsonQuery({}, 'constructor')).toBeUndefined();
    expect(runJsonQuery({ a: {} }, 'a.__proto__')).toBeUndefined();
  });
});
