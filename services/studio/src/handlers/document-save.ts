import { componentGroupInputSchema, parseAs, studioTemplateInputSchema } from '@nap/contracts';
import type { Caller, ComponentGroup, ComponentGroupInput, StudioTemplate, StudioTemplateInput } from '@nap/contracts';
import { keepableId, toStoredComponentGroup, toStoredTemplate } from '../domain/documents';
import type { OriginalStamp, SaveStamp } from '../domain/documents';
import type { NamedDoc, NamedDocuments } from '../store/documents';
import { checked } from './checked';
import type { StudioDeps } from './deps';

/**
 * A kind of camel-stamped studio document (templates, component groups): its repository, how a
 * submitted one is checked, and how the stored one is made.
 */
export interface CamelKind<I extends { _id?: unknown }, T extends NamedDoc> {
  repo(deps: StudioDeps): NamedDocuments<T>;
  /** The submitted document typed by its input schema; 400 `VALIDATION_FAILED` naming each problem, members prefixed by `member`. */
  check(input: unknown, member: string): I;
  /** The stored document: the submitted members, defaults, `_id` and the camel-case audit fields. */
  toStored(input: I, id: string, stamp: SaveStamp, original?: OriginalStamp): T;
}

export const TEMPLATE_KIND: CamelKind<StudioTemplateInput, StudioTemplate> = {
  repo: (deps) => deps.templates,
  check: (input, member) => checked('template', input, () => parseAs(studioTemplateInputSchema, input, member)),
  toStored: toStoredTemplate,
};

export const COMPONENT_GROUP_KIND: CamelKind<ComponentGroupInput, ComponentGroup> = {
  repo: (deps) => deps.componentGroups,
  check: (input, member) => checked('component group', input, () => parseAs(componentGroupInputSchema, input, member)),
  toStored: toStoredComponentGroup,
};

/** Checks and stores a new document of `kind`; 409 when its name (or kept id) is taken. */
export async function createCamel<I extends { _id?: unknown }, T extends NamedDoc>(
  deps: StudioDeps,
  kind: CamelKind<I, T>,
  input: unknown,
  caller: Caller,
  member: string,
): Promise<T> {
  const doc = kind.check(input, member);
  return kind.repo(deps).insert(kind.toStored(doc, keepableId(doc._id) ?? deps.newId(), { by: caller.username, at: deps.now() }));
}

/** Checks and replaces the document of `kind` with id `id`; its creation stamp stays. */
export async function replaceCamel<I extends { _id?: unknown }, T extends NamedDoc & { created: string; createdBy: string }>(
  deps: StudioDeps,
  kind: CamelKind<I, T>,
  id: string,
  input: unknown,
  caller: Caller,
  member: string,
): Promise<T> {
  const repo = kind.repo(deps);
  const current = await repo.get(id);
  const doc = kind.check(input, member);
  return repo.replace(
    kind.toStored(doc, id, { by: caller.username, at: deps.now() }, { _id: id, created: current.created, createdBy: current.createdBy }),
  );
}
