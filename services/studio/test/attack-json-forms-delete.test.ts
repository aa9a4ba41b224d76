import { AppError } from '@nap/contracts';
import type { AuditPart, Caller, StoredForm } from '@nap/contracts';
import type { StudioContext } from '../src/context';
import { deleteJsonForms } from '../src/handlers/delete-json-forms';

/**
 * `DELETE /json-forms/forms` is all or nothing: every form is checked before any is deleted. A form
 * another request deletes between the check and this request's deletion of it is gone as asked; the
 * forms after it must still be deleted, and what this request deleted must reach the audit trail.
 */
describe('DELETE /json-forms/forms while another request deletes one of its forms', () => {
  it('deletes every other form asked for and audits those it deleted', async () => {
    const stored = new Map<string, StoredForm>(
      ['a', 'b', 'c'].map((id) => [id, { _id: id, name: `form-${id}`, groups: [] } as unknown as StoredForm]),
    );
    const forms = {
      findById: async (id: string) => stored.get(id) ?? null,
      delete: async (id: string) => {
        const gone = stored.get(id);
        stored.delete(id);
        // b was deleted by another request once this one had checked it
        if (gone === undefined || id === 'b') throw new AppError('FORM_NOT_FOUND', `No form with id "${id}"`);
        return gone;
      },
    };
    const audited: AuditPart[] = [];
    const handler = deleteJsonForms({ forms } as unknown as StudioContext);
    const caller: Caller = { id: 'u1', username: 'ann', roles: ['engineering'], groups: [] };
    const answer = await handler(
      { body: { ids: ['a', 'b', 'c'] }, caller } as never,
      {
        audit: (part: AuditPart) => audited.push(part),
      } as never,
    );
    expect([...stored.keys()]).toEqual([]);
    expect(answer).toMatchObject({ status: 'success', n: 2 });
    expect(audited.flatMap((p) => p.each ?? []).map((p) => p.target?.id)).toEqual(['a', 'c']);
  });
});
