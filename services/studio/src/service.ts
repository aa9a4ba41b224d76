import { randomUUID } from 'node:crypto';
import { serve } from '@nap/bus';
import { RELEASE, SYSTEM_CALLER } from '@nap/contracts';
import type { ComponentGroup, StoredForm, StoredWorkflowDocument, StudioTemplate, Transformation } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { DeclaredIndexes } from '@nap/store';
import { createMopCommandTemplates } from './clients/mop-command-templates';
import { createWorkerRegexRunner } from './clients/regex-worker';
import { createTemplateRenderer, loadTemplateRendererConfig, templatingProblem } from './clients/template-renderer';
import type { TemplateRendererConfig } from './clients/template-renderer';
import { recoverProjectChanges, recoverProjectImports } from './context';
import type { StudioContext } from './context';
import type { RunLimits } from './domain/jst';
import { TransformationRunner } from './domain/transformations';
import { studioHandlers } from './handlers';
import { STUDIO_COLLECTIONS, ensureCollections } from './store/collections';
import { KINDS, NamedDocuments } from './store/documents';
import { ProjectRecords } from './store/project-records';
import { TaggedDocuments } from './store/tagged-documents';
import { TagStore } from './store/tags';
import { repairTags } from './steps/tags';

/** Tuning of the studio service. */
export interface StudioServiceOptions {
  /** Bounds of one transformation run (steps, time, output size, value size, call depth). */
  jstLimits?: Partial<RunLimits>;
  /** Longest one regular expression of a transformation may run, in ms; default 1000. */
  jstRegexTimeoutMs?: number;
  /** The Python template renderer; from `NAP_PYTHON` and `NAP_TEMPLATE_*` when absent. */
  templates?: TemplateRendererConfig;
}

/**
 * The studio service: studio documents: workflows, templates, component groups, forms, JST
 * transformations (checked on save, run in process with bounds; regular expressions in a worker), and
 * projects (imported and exported through each component's owning service). Workflows
 * are validated on save and served to the workflow engine over the bus (`studio.getWorkflow`).
 * Jinja2 and TextFSM templates run in a pool of Python workers that starts with the first render.
 * Every catalog operation of the service is registered; those without a handler answer 501 NOT_IMPLEMENTED.
 */
export function createStudioService(deps: ServiceDeps, options: StudioServiceOptions = {}): ServiceModule {
  const { bus, store, logger, metrics, client } = deps;
  const regex = createWorkerRegexRunner({ timeoutMs: options.jstRegexTimeoutMs ?? 1_000 });
  const templates = options.templates ?? loadTemplateRendererConfig();
  const renderer = createTemplateRenderer(templates, logger.child({ component: 'template-workers' }));
  const tags = new TagStore(store);
  const tagsLog = logger.child({ component: 'tags' });
  const svc: StudioContext = {
    // deleting a document that can carry tags removes its tag references
    workflows: new TaggedDocuments<StoredWorkflowDocument>(store, KINDS.workflow, tags, 'workflow', tagsLog),
    templates: new TaggedDocuments<StudioTemplate>(store, KINDS.template, tags, 'template', tagsLog),
    componentGroups: new NamedDocuments<ComponentGroup>(store, KINDS.componentGroup),
    forms: new TaggedDocuments<StoredForm>(store, KINDS.form, tags, 'jsonForm', tagsLog),
    transformations: new TaggedDocuments<Transformation>(store, KINDS.transformation, tags, 'transformation', tagsLog),
    projects: new ProjectRecords(store),
    tags,
    jst: new TransformationRunner({ regex, ...(options.jstLimits ? { limits: options.jstLimits } : {}) }),
    renderer,
    mopCommandTemplates: createMopCommandTemplates(client),
    log: logger,
    newId: () => randomUUID(),
    now: () => new Date().toISOString(),
  };
  return {
    async start(): Promise<RunningService> {
      await ensureCollections(store, logger);
      // a platform without Python's jinja2 and textfsm runs, templates off: said here once, and by every template call (503)
      const problem = await templatingProblem(templates.python);
      if (problem !== undefined) logger.warn({ python: templates.python }, `Templates are off: ${problem}`);
      const registered = await serve({
        bus,
        service: 'studio',
        version: RELEASE,
        logger,
        metrics,
        client,
        idempotency: deps.idempotency,
        handlers: studioHandlers(svc),
        indexes: new DeclaredIndexes(store, STUDIO_COLLECTIONS),
      });
      // an import that a crash left half done is rolled back (as the platform: its components may belong to anyone)
      recoverProjectImports(svc, SYSTEM_CALLER).catch((err: unknown) =>
        logger.warn({ err }, 'Rolling back unfinished project imports failed'),
      );
      recoverProjectChanges(svc, SYSTEM_CALLER).catch((err: unknown) =>
        logger.warn({ err }, 'Undoing unfinished changes of project components failed'),
      );
      // a tag deletion a crash interrupted is finished; references to what is gone are removed
      repairTags(svc, tagsLog).catch((err: unknown) => logger.warn({ err }, 'Repairing tags failed'));
      return {
        name: 'studio',
        async stop() {
          await registered.stop();
          await regex.close();
          await renderer.close();
        },
      };
    },
  };
}
