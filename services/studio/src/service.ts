import { randomUUID } from 'node:crypto';
import { serve } from '@nap/bus';
import { RELEASE } from '@nap/contracts';
import type { ComponentGroup, StoredForm, StoredWorkflowDocument, StudioTemplate, Transformation } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { studioHandlers } from './handlers';
import type { StudioDeps } from './handlers';
import { ensureCollections } from './store/collections';
import { KINDS, NamedDocuments } from './store/documents';
import { TransformationRunner } from './domain/transformations';
import { createWorkerRegexRunner } from './jst';
import type { RunLimits } from './jst';

/** Tuning of the studio service: the bounds of a JST run. */
export interface StudioServiceOptions {
  /** Bounds of one transformation run (steps, time, output size, value size, call depth). */
  jstLimits?: Partial<RunLimits>;
  /** Longest one regular expression of a transformation may run, in ms; default 1000. */
  jstRegexTimeoutMs?: number;
}

/**
 * The studio service: studio documents: workflows, templates, component groups, forms, JST
 * transformations (checked on save, run in process with bounds; regular expressions in a worker). Workflows
 * are validated on save and served to the workflow engine over the bus (`studio.getWorkflow`).
 * Every catalog operation of the service is registered; those without a handler answer 501 NOT_IMPLEMENTED.
 */
export function createStudioService(deps: ServiceDeps, options: StudioServiceOptions = {}): ServiceModule {
  const { bus, store, logger, metrics, client } = deps;
  const regex = createWorkerRegexRunner({ timeoutMs: options.jstRegexTimeoutMs ?? 1_000 });
  const studio: StudioDeps = {
    workflows: new NamedDocuments<StoredWorkflowDocument>(store, KINDS.workflow),
    templates: new NamedDocuments<StudioTemplate>(store, KINDS.template),
    componentGroups: new NamedDocuments<ComponentGroup>(store, KINDS.componentGroup),
    forms: new NamedDocuments<StoredForm>(store, KINDS.form),
    transformations: new NamedDocuments<Transformation>(store, KINDS.transformation),
    jst: new TransformationRunner({ regex, ...(options.jstLimits ? { limits: options.jstLimits } : {}) }),
    newId: () => randomUUID(),
    now: () => new Date().toISOString(),
  };
  return {
    async start(): Promise<RunningService> {
      await ensureCollections(store);
      const registered = await serve({ bus, service: 'studio', version: RELEASE, logger, metrics, client, handlers: studioHandlers(studio) });
      return {
        name: 'studio',
        stop: async () => {
          await registered.stop();
          await regex.close();
        },
      };
    },
  };
}
