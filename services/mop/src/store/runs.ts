import { AppError } from '@nap/contracts';
import type { AnalyticRunResult, ListQueryOptions, Page, TemplateRun, TemplateRunKind, TemplateRunResult } from '@nap/contracts';
import { toListQuery } from '@nap/store';
import type { Collection, Doc, Filter, ListFields, Store } from '@nap/store';
import { runSecretsMask } from '../domain/run-secrets';
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

  /** Keeps a run in the history, its secret values masked wherever its texts hold them; answers its id. */
  async keep(run: {
    kind: TemplateRunKind;
    template: string;
    devices: string[];
    variables: Record<string, unknown>;
    started: number;
    createdBy: string;
    output: TemplateRunResult | AnalyticRunResult;
  }): Promise<string> {
    const mask = runSecretsMask(run.variables);
    const stored = await this.collection.insertOne({
      kind: run.kind,
      template: run.template,
      devices: run.devices,
      variables: mask(run.variables),
      result: run.output.result,
      started: run.started,
      finished: Date.now(),
      createdBy: run.createdBy,
      output: mask(run.output),
    });
    this.recorded(stored.kind, stored.result);
    return stored._id;
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
