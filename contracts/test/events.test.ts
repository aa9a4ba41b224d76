import { ACCOUNT_CHANGE_REASONS, EVENTS, JOB_EVENTS, getEvent } from '../src/events';
import { eventPattern, eventSubject } from '../src/subjects';
import { validateEvent } from '../src/validation';

describe('event subjects', () => {
  it('are nap.evt.<service>.<entity>.<id>.<event>', () => {
    expect(eventSubject('workflow', 'job', '3f8e2a5c-1b4d-4c6e-9a7b-2d1e0f3c4b5a', 'jobComplete')).toBe(
      'nap.evt.workflow.job.3f8e2a5c-1b4d-4c6e-9a7b-2d1e0f3c4b5a.jobComplete',
    );
    expect(eventSubject('admin', 'session', 's1', 'sessionRevoked')).toBe('nap.evt.admin.session.s1.sessionRevoked');
  });

  it('refuse parts that would split or widen the subject', () => {
    expect(() => eventSubject('workflow', 'job', 'a.b', 'jobStart')).toThrow(/id "a.b"/);
    expect(() => eventSubject('workflow', 'job', '*', 'jobStart')).toThrow(/id "\*"/);
    expect(() => eventSubject('workflow', 'job', 'j1', '>')).toThrow(/event ">"/);
    expect(() => eventSubject('workflow', '', 'j1', 'jobStart')).toThrow(/entity ""/);
    expect(() => eventSubject('nope' as 'workflow', 'job', 'j1', 'jobStart')).toThrow(/service "nope"/);
  });

  it('have subscription patterns per entity id or for all ids', () => {
    expect(eventPattern('workflow', 'job', 'j1')).toBe('nap.evt.workflow.job.j1.*');
    expect(eventPattern('admin', 'account')).toBe('nap.evt.admin.account.*.*');
  });
});

describe('event payloads', () => {
  it('describe every job event and the admin events, each schema with an $id', () => {
    expect(EVENTS.filter((e) => e.entity === 'job').map((e) => e.event)).toEqual([...JOB_EVENTS]);
    expect(EVENTS.filter((e) => e.service === 'admin').map((e) => e.event)).toEqual([
      'sessionRevoked',
      'accountChanged',
      'groupChanged',
      'adapterChanged',
      'auditRecorded',
    ]);
    for (const e of EVENTS) expect(e.schema.$id).toBe(`nap:evt/${e.service}.${e.entity}.${e.event}`);
    expect(() => getEvent('workflow', 'job', 'jobExplode')).toThrow(/workflow.job.jobExplode/);
  });

  it('accept well-formed job and task events and name what is missing', () => {
    const base = { jobId: 'j1', name: 'Port turn-up', status: 'running', timestamp: 1735689600000, seq: 1 };
    expect(validateEvent(getEvent('workflow', 'job', 'jobStart'), { ...base, by: 'u1' })).toEqual([]);
    expect(
      validateEvent(getEvent('workflow', 'job', 'jobError'), {
        ...base,
        status: 'error',
        error: [{ task: 't1', message: 'boom', timestamp: 1 }],
      }),
    ).toEqual([]);
    expect(validateEvent(getEvent('workflow', 'job', 'jobError'), base).map((p) => p.member)).toEqual(['payload.error']);
    expect(
      validateEvent(getEvent('workflow', 'job', 'taskFinish'), {
        ...base,
        taskId: 't1',
        taskName: 'RunCommand',
        taskStatus: 'complete',
        finishState: 'success',
      }),
    ).toEqual([]);
    expect(
      validateEvent(getEvent('workflow', 'job', 'taskStart'), base)
        .map((p) => p.member)
        .sort(),
    ).toEqual(['payload.taskId', 'payload.taskName', 'payload.taskStatus']);
    expect(validateEvent(getEvent('workflow', 'job', 'jobStart'), { ...base, timestamp: '2025-01-01' }).map((p) => p.member)).toEqual([
      'payload.timestamp',
    ]);
  });

  it('accept the admin events exactly as specified', () => {
    expect(validateEvent(getEvent('admin', 'session', 'sessionRevoked'), { sid: 's1', exp: 1735693200 })).toEqual([]);
    expect(validateEvent(getEvent('admin', 'session', 'sessionRevoked'), { sid: 's1' }).map((p) => p.member)).toEqual(['payload.exp']);
    for (const reason of ACCOUNT_CHANGE_REASONS) {
      expect(validateEvent(getEvent('admin', 'account', 'accountChanged'), { accountId: 'u1', reason })).toEqual([]);
    }
    expect(validateEvent(getEvent('admin', 'account', 'accountChanged'), { accountId: 'u1', reason: 'mood' }).map((p) => p.member)).toEqual(
      ['payload.reason'],
    );
    expect(validateEvent(getEvent('admin', 'group', 'groupChanged'), { groupId: 'g1', extra: 1 }).map((p) => p.member)).toEqual([
      'payload.extra',
    ]);
  });
});
