import type { Store } from '@nap/store';
import type { ProjectRecord } from '../domain/projects';
import { KINDS, NamedDocuments } from './documents';

/** The stored projects; while an import runs, a project's record is the import's journal. */
export class ProjectRecords extends NamedDocuments<ProjectRecord> {
  constructor(store: Store) {
    super(store, KINDS.project);
  }

  /** Projects whose import started before `startedBeforeMs` (epoch ms) and has not finished, with their components. */
  async unfinishedImports(startedBeforeMs: number): Promise<Pick<ProjectRecord, '_id' | 'name' | 'components'>[]> {
    return this.scan({ 'importing.startedAt': { $lt: startedBeforeMs } }, ['name', 'components']);
  }

  /** Projects whose components began to change (components/add, a create) before `startedBeforeMs` (epoch ms) and have not finished. */
  async unfinishedChanges(startedBeforeMs: number): Promise<ProjectRecord[]> {
    const found = await this.scan({ 'changing.startedAt': { $lt: startedBeforeMs } }, ['name']);
    const records = await Promise.all(found.map((p) => this.findById(p._id)));
    return records.filter((r): r is ProjectRecord => r !== null && r.changing !== undefined);
  }
}
