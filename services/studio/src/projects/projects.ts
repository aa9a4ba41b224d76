import { AppError, PROJECT_COMPONENT_TYPES, TIMEOUTS_MS, isAppError, memberName, plainName, projectOf } from '@nap/contracts';
import type { Caller, ExportedProject, Project, ProjectComponent, ProjectComponentType } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { keepableId } from '../domain/documents';
import type { NamedDocuments } from '../store/documents';
import type { ComponentKind } from './component-kinds';
import type { ProjectRecord } from './project-record';

/** The original name of a component stored as `@<project _id>: <name>` (the naming rule of `@nap/contracts`' project-members). */
function originalNameOf(projectId: string, stored: string): string {
  return projectOf(stored) === projectId ? plainName(stored) : stored;
}

/** Order of creation: what workflows refer to first. */
const CREATE_ORDER: readonly ProjectComponentType[] = ['template', 'jsonForm', 'mopCommandTemplate', 'transformation', 'workflow'];

/**
 * Projects: import (every component through its owning service, all or nothing), export (the
 * components as stored now, with their original names), deletion. The import checks every
 * component before it writes any; while it writes, the project record is its journal (the
 * components stored so far), so that a failure deletes them again and a crash is rolled back at the
 * next start.
 */
export class Projects {
  constructor(
    private readonly projects: NamedDocuments<ProjectRecord>,
    private readonly kinds: Partial<Record<ProjectComponentType, ComponentKind>>,
    private readonly newId: () => string,
    private readonly now: () => string,
    private readonly log: Logger,
  ) {}

  async import(project: ExportedProject, caller: Caller): Promise<Project> {
    const id = keepableId(project._id) ?? this.newId().replace(/-/g, '').slice(0, 24);
    const components = project.components;
    this.refuseUnsupported(components);
    if ((await this.projects.findById(id)) !== null)
      throw new AppError('PROJECT_ALREADY_EXISTS', `A project with id "${id}" exists; delete it first to import it again`);
    if ((await this.projects.findByName(project.name)) !== null)
      throw new AppError('PROJECT_ALREADY_EXISTS', `A project named "${project.name}" exists`);

    const planned = this.plan(id, components);
    for (const p of planned) await this.named(p, () => p.kind.check(p.doc, p.member, caller));

    const at = this.now();
    const record: ProjectRecord = {
      _id: id,
      name: project.name,
      description: project.description ?? '',
      folders: project.folders ?? [],
      components: [],
      created: at,
      createdBy: caller.username,
      lastUpdated: at,
      lastUpdatedBy: caller.username,
      importing: { startedAt: Date.now() },
    };
    await this.projects.insert(record);
    try {
      for (const p of planned) {
        const reference = await this.named(p, () => p.kind.create(p.doc, p.member, caller));
        record.components.push({
          iid: p.component.iid,
          type: p.component.type,
          reference,
          folder: p.component.folder ?? '/',
          name: p.name,
          storedName: p.storedName,
        });
        await this.projects.replace(record);
      }
    } catch (err) {
      await this.rollBack(record, caller);
      throw err;
    }
    record.components.sort((a, b) => a.iid - b.iid);
    const { importing: _done, ...done } = record;
    await this.projects.replace(done);
    return done;
  }

  /** The project with its components' documents as stored now, under their original names. */
  async export(id: string, caller: Caller): Promise<ExportedProject> {
    const { importing: _i, components, ...project } = await this.projects.get(id);
    const out: ProjectComponent[] = [];
    for (const c of components) {
      const kind = this.kindOf(c.type);
      const stored = await kind.read(c.reference, c.storedName, caller);
      const document = { ...stored, name: originalNameOf(project._id, typeof stored.name === 'string' ? stored.name : c.storedName) };
      out.push({
        iid: c.iid,
        type: c.type,
        reference: c.type === 'mopCommandTemplate' ? c.storedName : c.reference,
        folder: c.folder ?? '/',
        document,
      });
    }
    return { ...project, components: out };
  }

  /** Deletes a project's components through their services, then the project. */
  async delete(id: string, caller: Caller): Promise<number> {
    const project = await this.projects.get(id);
    for (const c of project.components) await this.kindOf(c.type).remove(c.reference, caller);
    await this.projects.delete(id);
    return project.components.length;
  }

  /** Rolls back imports a crash left half done (older than the import's time limit, so that none still runs). */
  async recover(caller: Caller): Promise<void> {
    const stale = await this.projects.scan({ 'importing.startedAt': { $lt: Date.now() - TIMEOUTS_MS.long } }, ['name', 'components']);
    for (const p of stale) {
      this.log.warn({ projectId: p._id, components: p.components.length }, 'Rolling back a project import that did not finish');
      await this.rollBack(p, caller);
    }
  }

  private async rollBack(record: Pick<ProjectRecord, '_id' | 'components'>, caller: Caller): Promise<void> {
    for (const c of [...record.components].reverse()) {
      try {
        await this.kindOf(c.type).remove(c.reference, caller);
      } catch (err) {
        this.log.error(
          { err, projectId: record._id, component: c.storedName },
          'A component of a failed project import could not be deleted',
        );
      }
    }
    await this.projects.delete(record._id).catch(() => undefined);
  }

  /** 501 naming every component type that cannot be imported yet, before anything is checked or written. */
  private refuseUnsupported(components: readonly ProjectComponent[]): void {
    const unsupported = new Map<string, string[]>();
    for (const c of components) {
      if (this.kinds[c.type] !== undefined) continue;
      const names = unsupported.get(c.type) ?? [];
      names.push(String(c.document.name ?? c.iid));
      unsupported.set(c.type, names);
    }
    if (unsupported.size === 0) return;
    const listed = [...unsupported.entries()].map(
      ([type, names]) =>
        `${type} (${names.length}: ${names
          .slice(0, 3)
          .map((n) => `"${n}"`)
          .join(', ')}${names.length > 3 ? ', …' : ''})`,
    );
    throw new AppError(
      'NOT_IMPLEMENTED',
      `The project has components of a type that cannot be imported yet: ${listed.join('; ')}. Nothing was imported.`,
      {
        details: [...unsupported.keys()].map((type) => ({
          member: 'body.project.components',
          message: `component type ${type} cannot be imported yet`,
        })),
      },
    );
  }

  private plan(projectId: string, components: readonly ProjectComponent[]) {
    const seen = new Map<string, number>();
    const planned = components.map((component, index) => {
      const name = typeof component.document.name === 'string' ? component.document.name : '';
      const member = `body.project.components[${index}].document`;
      if (name === '')
        throw new AppError('VALIDATION_FAILED', `${member}.name is required`, {
          details: [{ member: `${member}.name`, message: 'is required' }],
        });
      const storedName = memberName(projectId, name);
      const key = `${component.type}\u0000${storedName}`;
      const other = seen.get(key);
      if (other !== undefined)
        throw new AppError('VALIDATION_FAILED', `components ${other} and ${index} are both ${component.type} "${name}"`, {
          details: [{ member, message: 'duplicate component name' }],
        });
      seen.set(key, index);
      const doc: Record<string, unknown> = { ...component.document, name: storedName };
      // a workflow exported without its _id keeps the component reference as its id, so links by id survive
      if (component.type === 'workflow' && doc._id === undefined && keepableId(component.reference) !== undefined)
        doc._id = component.reference;
      return { component, kind: this.kindOf(component.type), doc, member, name, storedName };
    });
    return planned.sort((a, b) => CREATE_ORDER.indexOf(a.component.type) - CREATE_ORDER.indexOf(b.component.type));
  }

  /** Runs `fn` for a component; an error is thrown again naming the component, with its code, status and details. */
  private async named<T>(p: { component: ProjectComponent; name: string }, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!isAppError(err)) throw err;
      throw new AppError(
        err.code,
        `Component ${p.component.iid} (${p.component.type} "${p.name}") was refused: ${err.message}. Nothing was imported.`,
        {
          status: err.status,
          cause: err,
          ...(err.details !== undefined ? { details: err.details } : {}),
        },
      );
    }
  }

  private kindOf(type: ProjectComponentType): ComponentKind {
    const kind = this.kinds[type];
    if (kind === undefined)
      throw new AppError(
        'NOT_IMPLEMENTED',
        `Components of type ${type} cannot be handled yet (types: ${PROJECT_COMPONENT_TYPES.join(', ')})`,
      );
    return kind;
  }
}
