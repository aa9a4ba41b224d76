import { AppError } from '@nap/contracts';
import type { Page, TemplateRun } from '@nap/contracts';
import type { Collection, Doc, Filter, Store } from '@nap/store';
import { COLLECTIONS } from './collections';

/** Most runs one page answers. */
export const MAX_RUNS_PAGE = 100;

/** The run history: every command and analytic template run, newest first. */
export class RunRepository {
  private readonly collection: Collection<TemplateRun & Doc>;

  constructor(
    store: Store,
    /** Told of every run kept (metrics). */
    private readonly recorded: (kind: TemplateRun['kind'], passed: boolean) => void = () => undefined,
  ) {
    this.collection = store.collection<TemplateRun & Doc>(COLLECTIONS.runs);
  }

  async record(run: Omit<TemplateRun, '_id'> & { _id?: string }): Promise<TemplateRun> {
    const stored = await this.collection.insertOne(run);
    this.recorded(run.kind, run.result);
    return stored;
  }

  async get(id: string): Promise<TemplateRun> {
    const run = await this.collection.findOne({ _id: id });
    if (run === null) throw new AppError('MOP_RUN_NOT_FOUND', `No template run has id "${id}"`);
    return run;
  }

  async page(query: { template?: string; kind?: 'command' | 'analytic'; device?: string; skip?: number; limit?: number }): Promise<Page<TemplateRun>> {
    const filter: Filter = {};
    if (query.template !== undefined) filter.template = query.template;
    if (query.kind !== undefined) filter.kind = query.kind;
    if (query.device !== undefined) filter.devices = query.device;
    const skip = query.skip ?? 0;
    const limit = Math.min(query.limit === undefined || query.limit === 0 ? 20 : query.limit, MAX_RUNS_PAGE);
    const [items, total] = await Promise.all([this.collection.find(filter, { sort: { started: -1 }, skip, limit }), this.collection.countDocuments(filter)]);
    return { items, total, skip, limit };
  }
}
