import { randomUUID } from 'node:crypto';
import { serve } from '@nap/bus';
import { RELEASE } from '@nap/contracts';
import type { ComponentGroup, StoredForm, StoredWorkflowDocument, StudioTemplate } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { studioHandlers } from './handlers';
import type { StudioDeps } from './handlers';
import { ensureCollections } from './store/collections';
import { KINDS, NamedDocuments } from './store/documents';

/**
 * The studio service: studio documents: workflows, templates, component groups, forms. Workflows
 * are validated on save and served to the workflow engine over the bus (`studio.getWorkflow`).
 * Every catalog operation of the service is registered; those without a handler answer 501 NOT_IMPLEMENTED.
 */
export function createStudioService(deps: ServiceDeps): ServiceModule {
  const { bus, store, logger, metrics, client } = deps;
  const studio: StudioDeps = {
    workflows: new NamedDocuments<StoredWorkflowDocument>(store, KINDS.workflow),
    templates: new NamedDocuments<StudioTemplate>(store, KINDS.template),
    componentGroups: new NamedDocuments<ComponentGroup>(store, KINDS.componentGroup),
    forms: new NamedDocuments<StoredForm>(store, KINDS.form),
    newId: () => randomUUID(),
    now: () => new Date().toISOString(),
  };
  return {
    async start(): Promise<RunningService> {
      await ensureCollections(store);
      const registered = await serve({ bus, service: 'studio', version: RELEASE, logger, metrics, client, idempotency: deps.idempotency, handlers: studioHandlers(studio) });
      return { name: 'studio', stop: () => registered.stop() };
    },
  };
}
