import { MemoryBus } from '../memory-bus';
import { EventLog } from './event-log';

const bytes = (text: string): Uint8Array => Buffer.from(text);

describe('EventLog', () => {
  it('tells a listener of the appends its filter matches, and one without a filter of every append', () => {
    const log = new EventLog(60_000, 1024 * 1024);
    const heard: string[] = [];
    const stop = log.onAppend(() => heard.push('jobs'), 'nap.evt.workflow.job.>');
    log.onAppend(() => heard.push('all'));
    log.append('nap.evt.admin.audit.a1.auditRecorded', bytes('{}'), {});
    log.append('nap.evt.workflow.job.j1.jobStart', bytes('{}'), {});
    // the same subject again, then after the listener left (who hears a subject is remembered until the listeners change)
    log.append('nap.evt.workflow.job.j1.jobStart', bytes('{}'), {});
    stop();
    log.append('nap.evt.workflow.job.j1.jobStart', bytes('{}'), {});
    log.append('nap.evt.workflow.job.j1.jobComplete', bytes('{}'), {});
    const late = log.onAppend(() => heard.push('late'), 'nap.evt.workflow.job.>');
    log.append('nap.evt.workflow.job.j1.jobComplete', bytes('{}'), {});
    late();
    log.append('nap.evt.workflow.job.j1.jobComplete', bytes('{}'), {});
    expect(heard).toEqual(['all', 'jobs', 'all', 'jobs', 'all', 'all', 'all', 'all', 'late', 'all']);
  });
});

describe('in-memory consumers', () => {
  it('deliver the event their filter matches after many they were not woken for, in order', async () => {
    const bus = new MemoryBus();
    try {
      const got: string[] = [];
      let bothArrived = (): void => undefined;
      const both = new Promise<void>((resolve) => (bothArrived = resolve));
      const sub = await bus.consumeEvents(
        'nap.evt.admin.adapter.>',
        (event) => {
          got.push(event.subject);
          if (got.length === 2) bothArrived();
        },
        { deliver: 'new' },
      );
      for (let i = 0; i < 500; i++) await bus.publishEvent(`nap.evt.workflow.job.j${i}.jobStart`, bytes('{}'));
      await bus.publishEvent('nap.evt.admin.adapter.a1.adapterChanged', bytes('{}'));
      await bus.publishEvent('nap.evt.workflow.job.j0.jobComplete', bytes('{}'));
      await bus.publishEvent('nap.evt.admin.adapter.a2.adapterChanged', bytes('{}'));
      await both;
      expect(got).toEqual(['nap.evt.admin.adapter.a1.adapterChanged', 'nap.evt.admin.adapter.a2.adapterChanged']);
      await sub.unsubscribe();
    } finally {
      await bus.close();
    }
  });
});
