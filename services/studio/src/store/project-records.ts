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
}
