import { HEADERS, SYSTEM_CALLER } from '@nap/contracts';
import type { AuditPart } from '@nap/contracts';
import { createBusClient, createMemoryBus, serve } from '@nap/bus';
import type { Handler } from '@nap/bus';
import { createLogger } from '@nap/telemetry';

/**
 * What a handler tells the audit trail (`ctx.audit`) reaches the gateway in the answer's `nap-audit`
 * header: parts told one after another add up, and a part too large for a header keeps what names
 * its targets and drops the values (the gateway then records what it can).
 */
async function auditHeaderOf(handler: Handler<'workflow.cancelJobs'>, jobIds: string[]): Promise<AuditPart> {
  const bus = createMemoryBus();
  const service = await serve({
    bus,
    service: 'workflow',
    version: '0.0.1',
    handlers: { cancelJobs: handler },
    logger: createLogger({ name: 'audit-part-test', level: 'silent' }),
  });
  try {
    const raw = await createBusClient({ bus }).callRaw('workflow.cancelJobs', { body: { jobIds } }, { caller: SYSTEM_CALLER });
    expect(raw.status).toBe(200);
    const header = raw.headers[HEADERS.audit];
    if (header === undefined) throw new Error('no nap-audit header');
    return JSON.parse(header) as AuditPart;
  } finally {
    await service.stop();
    await bus.close();
  }
}

describe('the audit part of an answer', () => {
  it('adds up the records of several things a handler names, call after call', async () => {
    const part = await auditHeaderOf(
      async (input, ctx) => {
        for (const jobId of input.body.jobIds)
          ctx.audit({
            each: [
              { target: { kind: 'job', id: jobId, name: 'wf' }, changes: [{ member: 'status', before: 'running', after: 'canceled' }] },
            ],
          });
        return { results: [] };
      },
      ['j1', 'j2'],
    );
    expect(part.each).toEqual([
      { target: { kind: 'job', id: 'j1', name: 'wf' }, changes: [{ member: 'status', before: 'running', after: 'canceled' }] },
      { target: { kind: 'job', id: 'j2', name: 'wf' }, changes: [{ member: 'status', before: 'running', after: 'canceled' }] },
    ]);
  });

  it('keeps only the targets of each record when their values would not fit a header', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `job-${i}`);
    const large = 'x'.repeat(400);
    const part = await auditHeaderOf(async (input, ctx) => {
      ctx.audit({
        each: input.body.jobIds.map((id) => ({ target: { kind: 'job', id }, changes: [{ member: 'note', before: large, after: large }] })),
      });
      return { results: [] };
    }, ids);
    expect(part.each).toHaveLength(1000);
    expect(part.each?.[999]).toEqual({ target: { kind: 'job', id: 'job-999' } });
  });
});
