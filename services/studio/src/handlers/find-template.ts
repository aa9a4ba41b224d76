import { AppError } from '@nap/contracts';
import type { StudioTemplate, StudioTemplateType } from '@nap/contracts';
import { escapeRegex } from '@nap/store';
import type { StudioDeps } from './deps';

/**
 * The studio template a TemplateBuilder call names: by name, then by id; a name without a project
 * prefix also finds the one project member `@<project id>: <name>` (project members are stored
 * under such names, and the workflows of a project call their templates by the bare name). Several
 * such members are a 409 listing them; none a 404. A template of the other kind is a 422.
 */
export async function findTemplate(deps: StudioDeps, key: string, type: StudioTemplateType): Promise<StudioTemplate> {
  const template = (await deps.templates.findByName(key)) ?? (await deps.templates.findById(key)) ?? (await projectMember(deps, key));
  if (template.type !== type) {
    const use = type === 'jinja2' ? 'parseTemplate' : 'renderJinjaTemplate';
    throw new AppError(
      'TEMPLATE_TYPE_MISMATCH',
      `Template "${template.name}" is a ${template.type} template, not ${type}; use ${use} for it`,
    );
  }
  return template;
}

async function projectMember(deps: StudioDeps, key: string): Promise<StudioTemplate> {
  const found = key.startsWith('@') ? [] : await deps.templates.scan({ name: { $regex: `^@[^:]+: ${escapeRegex(key)}$` } }, ['name']);
  const members = found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const [only, ...others] = members;
  if (only === undefined) throw deps.templates.notFound(key, 'name or id');
  if (others.length > 0) {
    throw new AppError(
      'CONFLICT',
      `Several projects have a template named "${key}" (${members.map((m) => `"${m.name}"`).join(', ')}): call it by its full name or id`,
      {
        details: { candidates: members.map((m) => m.name) },
      },
    );
  }
  return deps.templates.get(only._id);
}
