import type { Handler } from '@nap/bus';
import type { ResponseOf } from '@nap/contracts';
import { accessFilter } from '../domain/access';
import { REFERENCE_KINDS, isGroupMember, referringTasks } from '../domain/references';
import type { ReferenceKind } from '../domain/references';
import type { NamedDoc, NamedDocuments } from '../store/documents';
import type { StudioContext } from '../context';

/** One document that refers to the target: kind (`workflow` or `componentGroup`), id, name and, for workflows, the referring task ids. */
type Reference = ResponseOf<'studio.getReferencesTo'>['references'][number];

/** The id and name of the document `target` names in `repo`, by id or name; none when there is none. */
async function aliases<T extends NamedDoc>(repo: NamedDocuments<T>, target: string): Promise<string[]> {
  const doc = await repo.findByIdOrName(target);
  return doc === null ? [] : [doc._id, doc.name];
}

/**
 * `GET /automation-studio/references-to?target=&type=`: the workflows (that the caller may see) and
 * component groups that refer to a document, by id or name. A target that is the id of a stored
 * workflow, template or form also matches its name, since tasks refer to those by name, and the
 * name of a transformation matches its id, since tasks refer to it by id (tr_id); a project
 * member is also referred to by the plain name its project's members call it by.
 */
export function getReferencesTo(svc: StudioContext): Handler<'studio.getReferencesTo'> {
  return async (input) => {
    const { target, type } = input.query;
    const kinds: readonly ReferenceKind[] = type === undefined ? REFERENCE_KINDS : [type];
    const targets = new Set([target]);
    const lookups: Promise<string[]>[] = [];
    if (kinds.includes('workflow')) lookups.push(aliases(svc.workflows, target));
    if (kinds.includes('template')) lookups.push(aliases(svc.templates, target));
    // tasks name a transformation by its id (tr_id): a target that is its name finds them too
    if (kinds.includes('transformation')) lookups.push(aliases(svc.transformations, target));
    if (kinds.includes('form')) lookups.push(aliases(svc.forms, target));
    for (const names of await Promise.all(lookups)) for (const n of names) targets.add(n);

    const references: Reference[] = [];
    for (const wf of await svc.workflows.scan(accessFilter(input.caller), ['name', 'tasks'])) {
      const tasks = referringTasks(wf, targets, kinds);
      if (tasks.length > 0) references.push({ type: 'workflow', _id: wf._id, name: wf.name, tasks });
    }
    for (const group of await svc.componentGroups.scan({}, ['name', 'members'])) {
      if (isGroupMember(group.members, targets, kinds)) references.push({ type: 'componentGroup', _id: group._id, name: group.name });
    }
    references.sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name));
    return { references, total: references.length };
  };
}
