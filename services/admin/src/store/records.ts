/** An integration model as stored: the view's members, the document as imported and its 3.x form. */
export interface ModelDoc {
  _id: string;
  [key: string]: unknown;
  versionId: string;
  title: string;
  version: string;
  description?: string;
  specification: string;
  app: string;
  servers: { url: string }[];
  defaultBasePath: string;
  methodCount: number;
  warnings: { path: string; message: string }[];
  /** The first server of the document as settings: what an integration's `server` defaults to. */
  server: { protocol?: 'http' | 'https'; host?: string; port?: number; base_path: string };
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/**
 * The documents of a model, apart from its record so that listing models and resolving a task's app
 * never read megabytes (the GitLab document is 1.4 MB, twice).
 */
export interface ModelSourceDoc {
  _id: string;
  [key: string]: unknown;
  /** As imported; `GET …/export` answers it. */
  document: Record<string, unknown>;
  /** OpenAPI 3.x (a 2.0 document converted), not dereferenced. */
  openapi: Record<string, unknown>;
}

/** An integration as stored: its connection settings with secrets sealed. */
export interface IntegrationDoc {
  _id: string;
  [key: string]: unknown;
  name: string;
  model: string;
  type: string;
  settings: Record<string, unknown>;
  /** Grows with every change: keys caches of compiled methods and tokens. */
  version: number;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** An adapter as stored: the document with sealed secrets, its lifecycle state and changelog. */
export interface AdapterDoc {
  _id: string;
  [key: string]: unknown;
  name: string;
  /** The adapter document (`data` of the record), connection settings sealed. */
  data: Record<string, unknown>;
  /** Desired lifecycle: RUNNING after start (the monitor brings it there), STOPPED, DELETED. */
  state: string;
  version: number;
  changelog: { version: string; date: string; changes: string }[];
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}
