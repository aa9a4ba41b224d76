import { randomUUID } from 'node:crypto';
import { serve } from '@nap/bus';
import { RELEASE, SYSTEM_CALLER } from '@nap/contracts';
import type { ComponentGroup, StoredForm, StoredWorkflowDocument, StudioTemplate } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { studioHandlers } from './handlers';
import type { StudioDeps } from './handlers';
import { componentKinds } from './projects/component-kinds';
import { Projects } from './projects/projects';
import type { ProjectRecord } from './projects/projects';
import { ensureCollections } from './store/collections';
import { KINDS, NamedDocuments } from './store/documents';

/**
 * The studio service: studio documents: workflows, templates, component groups, forms, and
 * projects (imported and exported through each component's owning service). Workflows
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
    projectRecords: new NamedDocuments<ProjectRecord>(store, KINDS.project),
    newId: () => randomUUID(),
    now: () => new Date().toISOString(),
  };
  const projects = new Projects(studio.projectRecords, componentKinds(studio, client), studio.newId, studio.now, logger.child({ component: 'projects' }));
  return {
    async start(): Promise<RunningService> {
      await ensureCollections(store);
      const registered = await serve({ bus, service: 'studio', version: RELEASE, logger, metrics, client, handlers: studioHandlers(studio, projects) });
      // an import that a crash left half done is rolled back (as the platform: its components may belong to anyone)
      projects.recover(SYSTEM_CALLER).catch((err: unknown) => logger.warn({ err }, 'Rolling back unfinished project imports failed'));
      return { name: 'studio', stop: () => registered.stop() };
    },
  };
}
