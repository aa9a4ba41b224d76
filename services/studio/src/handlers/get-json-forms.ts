import type { Handler } from '@nap/bus';
import type { StoredForm } from '@nap/contracts';
import { asJsonForm } from '../context';
import type { StudioContext } from '../context';
import { accessFilter } from '../domain/access';

/** The largest page the store is asked for while reading every form. */
const PAGE = 500;

/**
 * `GET /json-forms/forms`: every form the caller may see (JSON forms and form-builder forms are one
 * kind of studio document), as a bare array sorted by name, each with `id` beside `_id`.
 */
export function getJsonForms(svc: StudioContext): Handler<'studio.getJsonForms'> {
  return async (input) => {
    const forms: StoredForm[] = [];
    const scope = accessFilter(input.caller);
    for (let skip = 0; ; skip += PAGE) {
      const page = await svc.forms.page({ filter: {}, sort: { name: 1, _id: 1 }, skip, limit: PAGE }, scope);
      forms.push(...page.items);
      if (page.items.length < PAGE || forms.length >= page.total) break;
    }
    return forms.map(asJsonForm);
  };
}
