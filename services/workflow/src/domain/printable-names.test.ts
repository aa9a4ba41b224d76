import { isAppError } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import { toAutomationRecord, toCatalogAutomation, toUpdatedAutomation } from './automations';
import { toTriggerRecord } from './trigger-model';

const caller = { username: 'netops', roles: ['admin'], groups: [] } as unknown as Caller;
const NOW = Date.parse('2026-01-05T10:00:00Z');

/** The 400 VALIDATION_FAILED `run` throws: its member and message. */
function refusal(run: () => unknown): { member: string; message: string } | undefined {
  try {
    run();
  } catch (e) {
    if (isAppError(e) && e.code === 'VALIDATION_FAILED') return (e.details as { member: string; message: string }[])[0];
    throw e;
  }
  return undefined;
}

describe('automation and trigger names (the bodies the catalog takes as open objects)', () => {
  it('a new automation, an import item and a rename refuse a control character, naming the member', () => {
    expect(refusal(() => toAutomationRecord({ name: 'nightly\u001b]0;x\u0007' }, caller, NOW, false))).toEqual({
      member: 'body.automation.name',
      message: 'body.automation.name contains the control character U+001B at position 8; a name is one line of printable text',
      keyword: 'pattern',
    });
    expect(refusal(() => toAutomationRecord({ name: '\tnightly' }, caller, NOW, true, 'body.automations[3]'))?.member).toBe(
      'body.automations[3].name',
    );
    const stored = toAutomationRecord({ name: 'Nachtlauf – Zürich 🚀' }, caller, NOW, false);
    expect(stored.name).toBe('Nachtlauf – Zürich 🚀');
    expect(refusal(() => toUpdatedAutomation(stored, { name: 'x\u202etxt' }, caller, NOW))?.message).toContain(
      'body.name contains the bidirectional formatting character U+202E at position 2',
    );
    // a stored name from before the rule does not stop another change
    expect(toUpdatedAutomation({ ...stored, name: 'old\u001bname' }, { description: 'd' }, caller, NOW).description).toBe('d');
  });

  it('a catalog import item is refused on its own (the handler reports it as that item failing)', () => {
    expect(refusal(() => toCatalogAutomation({ name: 'a\u0000b' }, caller, new Map()))?.member).toBe('name');
    expect(toCatalogAutomation({ name: 'a b' }, caller, new Map()).name).toBe('a b');
  });

  it('a trigger refuses one in the name given, not in the one stored', () => {
    const submitted = { name: 'hook\r\nX-Forged: 1', type: 'manual', actionId: 'a1' };
    expect(refusal(() => toTriggerRecord(submitted, 'body', caller, NOW, { newId: () => 't1' }))?.message).toBe(
      'body.name contains the control character U+000D at position 5; a name is one line of printable text',
    );
    const ok = toTriggerRecord({ ...submitted, name: 'Déclencheur 手動' }, 'body', caller, NOW, { newId: () => 't1' });
    expect(ok.name).toBe('Déclencheur 手動');
    const old = { ...ok, name: 'old\u001bname' };
    expect(toTriggerRecord({ enabled: false }, 'body', caller, NOW, { existing: old, newId: () => 't2' }).enabled).toBe(false);
  });
});
