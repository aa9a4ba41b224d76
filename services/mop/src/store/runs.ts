import { AppError } from '@nap/contracts';
import type { ListQueryOptions, Page, TemplateRun } from '@nap/contracts';
import { toListQuery } from '@nap/store';
import type { Collection, Doc, Filter, ListFields, Store } from '@nap/store';
import { COLLECTIONS } from './collections';

/** Most runs one page answers. */
export const MAX_RUNS_PAGE = 100;

/** What the run list filters and sorts on (the shared list options). */
const RUN_LIST_FIELDS: ListFields = {
  filter: ['template', '_id', 'kind', 'createdBy', 'devices'],
  sort: ['started', 'finished', 'template'],
  defaultSort: { started: -1 },
  defaultLimit: 20,
};

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

  /** A page of runs by the shared list options and the run filters (template, kind, device), newest first unless sorted. */
  async page(query: ListQueryOptions & { template?: string; kind?: 'command' | 'analytic'; device?: string }): Promise<Page<TemplateRun>> {
    const extra: Filter[] = [];
    if (query.template !== undefined) extra.push({ template: { $eq: query.template } });
    if (query.kind !== undefined) extra.push({ kind: { $eq: query.kind } });
    if (query.device !== undefined) extra.push({ devices: { $eq: query.device } });
    const list = toListQuery(query, RUN_LIST_FIELDS, extra);
    const limit = Math.min(list.limit, MAX_RUNS_PAGE);
    const [items, total] = await Promise.all([
      this.collection.find(list.filter, { sort: list.sort, skip: list.skip, limit }),
      this.collection.countDocuments(list.filter),
    ]);
    return { items, total, skip: list.skip, limit };
  }
}
