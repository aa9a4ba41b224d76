import type { StoredWorkflowDocument } from '@nap/contracts';
import type { NamedDoc, NamedDocuments } from '../store/documents';

export type StoredWorkflow = StoredWorkflowDocument & NamedDoc;

/** What the studio handlers share: the repositories, and the sources of ids and time (injectable for tests). */
export interface StudioDeps {
  workflows: NamedDocuments<StoredWorkflow>;
  templates: NamedDocuments<NamedDoc>;
  componentGroups: NamedDocuments<NamedDoc>;
  forms: NamedDocuments<NamedDoc>;
  /** A new document id (UUID v4). */
  newId(): string;
  /** Now, ISO 8601. */
  now(): string;
}
