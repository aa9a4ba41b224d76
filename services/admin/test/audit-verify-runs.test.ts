import type { AuditVerification } from '@nap/contracts';
import type { AdminContext } from '../src/context';
import { verifyAuditChain } from '../src/steps/audit';

/**
 * `GET /audit/verify` walks the whole chain: callers who ask while a walk runs share the one walk
 * that starts after it (it holds every record answered before they asked), so that many at once
 * cost two walks, not one each.
 */
describe('audit chain verification runs', () => {
  function service() {
    const walks: { resolve: (v: AuditVerification) => void }[] = [];
    const svc = {
      bus: { queueHandled: () => Promise.resolve() },
      audit: {
        verify: () =>
          new Promise<AuditVerification>((resolve) => {
            walks.push({ resolve });
          }),
      },
    } as unknown as AdminContext;
    return { svc, walks };
  }
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const result = (checked: number): AuditVerification => ({ valid: true, checked, firstBroken: null }) as unknown as AuditVerification;

  it('runs one walk at a time; those who asked meanwhile share the next', async () => {
    const { svc, walks } = service();
    const first = verifyAuditChain(svc);
    await settle();
    const waiting = [verifyAuditChain(svc), verifyAuditChain(svc), verifyAuditChain(svc)];
    await settle();
    expect(walks).toHaveLength(1);
    walks[0]?.resolve(result(10));
    await expect(first).resolves.toMatchObject({ checked: 10 });
    await settle();
    expect(walks).toHaveLength(2);
    walks[1]?.resolve(result(12));
    for (const answer of await Promise.all(waiting)) expect(answer).toMatchObject({ checked: 12 });
    // asked once both ended: a walk of its own
    const later = verifyAuditChain(svc);
    await settle();
    expect(walks).toHaveLength(3);
    walks[2]?.resolve(result(13));
    await expect(later).resolves.toMatchObject({ checked: 13 });
  });

  it('lets the next walk run when the one before failed', async () => {
    const { svc, walks } = service();
    const failing = verifyAuditChain(svc);
    await settle();
    const after = verifyAuditChain(svc);
    await settle();
    (walks[0] as unknown as { resolve: (v: unknown) => void }).resolve(Promise.reject(new Error('store closed')));
    await expect(failing).rejects.toThrow('store closed');
    await settle();
    walks[1]?.resolve(result(5));
    await expect(after).resolves.toMatchObject({ checked: 5 });
  });
});
