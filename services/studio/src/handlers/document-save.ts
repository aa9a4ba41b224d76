import { AppError, componentGroupInputSchema, studioTemplateInputSchema, validateAgainst } from '@nap/contracts';
import type { Caller, JsonSchema } from '@nap/contracts';
import { keepableId, toStoredCamel } from '../domain/documents';
import type { NamedDoc, NamedDocuments } from '../store/documents';
import type { StudioDeps } from './deps';

/** A kind of camel-stamped studio document (templates, component groups): its repository, schema and defaults. */
export interface CamelKind {
  repo(deps: StudioDeps): NamedDocuments<NamedDoc>;
  schema: JsonSchema;
  /** Members a stored document always has, filled in when the input lacks them. */
  defaults(): Record<string, unknown>;
}

export const TEMPLATE_KIND: CamelKind = {
  repo: (deps) => deps.templates,
  schema: studioTemplateInputSchema,
  defaults: () => ({ description: '', group: '', data: '', command: '', tags: [] }),
};

export const COMPONENT_GROUP_KIND: CamelKind = {
  repo: (deps) => deps.componentGroups,
  schema: componentGroupInputSchema,
  defaults: () => ({ description: '', members: [] }),
};

function checked(kind: CamelKind, input: unknown, member: string, label: string): Record<string, unknown> & { name: string } {
  const problems = validateAgainst(kind.schema, input, member);
  if (problems.length > 0) {
    const name = (input as { name?: unknown } | null)?.name;
    throw new AppError('VALIDATION_FAILED', `The ${label} "${typeof name === 'string' ? name : '(no name)'}" is not valid: ${problems.map((p) => p.message).join('; ')}`, {
      details: problems,
    });
  }
  return input as Record<string, unknown> & { name: string };
}

/** Checks and stores a new document of `kind`; 409 when its name (or kept id) is taken. */
export async function createCamel(deps: StudioDeps, kind: CamelKind, input: unknown, caller: Caller, member: string): Promise<NamedDoc> {
  const repo = kind.repo(deps);
  const doc = checked(kind, input, member, repo.kind.label);
  const stored = toStoredCamel({ ...kind.defaults(), ...doc }, keepableId(doc._id) ?? deps.newId(), { by: caller.username, at: deps.now() }) as NamedDoc;
  return repo.insert(stored);
}

/** Checks and replaces the document of `kind` with id `id`; its creation stamp stays. */
export async function replaceCamel(deps: StudioDeps, kind: CamelKind, id: string, input: unknown, caller: Caller, member: string): Promise<NamedDoc> {
  const repo = kind.repo(deps);
  const current = await repo.get(id);
  const doc = checked(kind, input, member, repo.kind.label);
  const original = { _id: id, created: String(current.created), createdBy: String(current.createdBy) };
  const stored = toStoredCamel({ ...kind.defaults(), ...doc }, id, { by: caller.username, at: deps.now() }, original) as NamedDoc;
  return repo.replace(stored);
}
