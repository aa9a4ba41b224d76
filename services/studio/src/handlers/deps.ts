import type { ComponentGroup, StoredForm, StoredWorkflowDocument, StudioTemplate, Transformation } from '@nap/contracts';
import type { TransformationRunner } from '../domain/transformations';
import type { TemplateRenderer } from '../clients/template-renderer';
import type { ProjectRecord } from '../projects/project-record';
import type { NamedDocuments } from '../store/documents';

/** What the studio handlers share: the repositories, and the sources of ids and time (injectable for tests). */
export interface StudioDeps {
  workflows: NamedDocuments<StoredWorkflowDocument>;
  templates: NamedDocuments<StudioTemplate>;
  componentGroups: NamedDocuments<ComponentGroup>;
  forms: NamedDocuments<StoredForm>;
  projectRecords: NamedDocuments<ProjectRecord>;
  transformations: NamedDocuments<Transformation>;
  /** Compiles and runs JST transformations. */
  jst: TransformationRunner;
  /** Python Jinja2 and TextFSM, in a pool of worker processes. */
  renderer: TemplateRenderer;
  /** A new document id (UUID v4). */
  newId(): string;
  /** Now, ISO 8601. */
  now(): string;
}
