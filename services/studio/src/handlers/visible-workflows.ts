import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';
import { accessFilter } from '../domain/access';

/** Bus only: which of the given workflow names the caller may see (the workflow engine's metrics of a caller who is not an admin). */
export function visibleWorkflows(svc: StudioContext): Handler<'studio.visibleWorkflows'> {
  return async (input) => {
    const scope = accessFilter(input.caller);
    const named = { name: { $in: [...new Set(input.body.names)] } };
    const found = await svc.workflows.scan(Object.keys(scope).length === 0 ? named : { $and: [named, scope] }, ['name']);
    return { names: found.map((workflow) => workflow.name) };
  };
}
