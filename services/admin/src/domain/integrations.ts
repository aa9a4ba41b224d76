import { AppError, hasCode, integrationPropertiesSchema, integrationSettingsSchema, parseAs } from '@nap/contracts';
import type {
  BodyOf,
  IntegrationModel,
  IntegrationRecord,
  IntegrationSettings,
  ModelFinding,
  OutboundResponse,
  ListQueryOptions,
} from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';
import type { OutboundHttp } from '../clients/outbound-http';
import type { IntegrationDoc, ModelDoc, ModelSourceDoc } from '../store/records';
import { appName, methodName, normalizeBasePath } from './method-names';
import { checkModel, defaultServer, dereferenceModel, methodsOf, operationsOf } from './openapi-model';
import type { Json, ModelCheck } from './openapi-model';
import { OperationRequestBuilder } from './request-builder';
import { maskSettings, openSettings, sealSettings } from './sealed-settings';

/** Default bound of one call, ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** `properties` of the integration bodies. */
export type IntegrationProperties = BodyOf<'admin.createIntegration'>['properties'];

/** The methods of an integration by generated name (also lower-cased) and operationId; each compiles its validators on first use. */
interface ResolvedMethods {
  get(name: string): OperationRequestBuilder | undefined;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * Integration models (OpenAPI documents named `<info.title>:<info.version>`) and integrations
 * (configured instances of a model with sealed credentials), and the calls workflow tasks make
 * through them.
 */
export class IntegrationDomain {
  private readonly models: Collection<ModelDoc>;
  private readonly sources: Collection<ModelSourceDoc>;
  private readonly integrations: Collection<IntegrationDoc>;
  /** Dereferenced documents by versionId and `lastUpdated`, built on first call. */
  private readonly dereferenced = new Map<string, Promise<Json>>();
  /** Compiled methods by integration name and version. */
  private readonly methods = new Map<string, Promise<ResolvedMethods>>();

  constructor(
    store: Store,
    private readonly secrets: SecretBox,
    private readonly http: OutboundHttp,
    /** The bound of a call that names none (the active profile's integrationProps.timeout; it changes while the service runs). */
    private readonly calls: { readonly integrationTimeoutMs: number } = { integrationTimeoutMs: DEFAULT_CALL_TIMEOUT_MS },
  ) {
    this.models = store.collection<ModelDoc>('integration_models');
    this.sources = store.collection<ModelSourceDoc>('integration_model_sources');
    this.integrations = store.collection<IntegrationDoc>('integrations');
  }

  // ---- models ----

  /** `PUT /integration-models/validation`: the check of an import, storing nothing. */
  async validateModel(document: Json): Promise<{ valid: boolean; errors: ModelFinding[]; warnings: ModelFinding[] }> {
    const { valid, errors, warnings } = await checkModel(document);
    return { valid, errors, warnings };
  }

  async createModel(document: Json, by: string): Promise<IntegrationModel> {
    const check = await this.checked(document);
    const doc = this.modelDoc(document, check, by);
    if ((await this.models.countDocuments({ _id: doc._id })) > 0) throw modelExists(doc._id);
    try {
      // the sources first: a record is never there without them
      await this.sources.replaceOne({ _id: doc._id }, { document, openapi: check.openapi }, { upsert: true });
      await this.models.insertOne(doc);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw modelExists(doc._id, err);
      throw err;
    }
    return modelView(doc);
  }

  async updateModel(document: Json, by: string): Promise<IntegrationModel> {
    const check = await this.checked(document);
    const versionId = versionIdOf(document);
    const current = await this.modelDocument(versionId);
    await this.refuseWhileUsed(versionId, 'replaced');
    const doc = { ...this.modelDoc(document, check, by), created: current.created, createdBy: current.createdBy };
    await this.sources.replaceOne({ _id: versionId }, { document, openapi: check.openapi }, { upsert: true });
    await this.models.replaceOne({ _id: versionId }, doc);
    this.dereferenced.delete(versionId);
    return modelView(doc);
  }

  async deleteModel(versionId: string): Promise<IntegrationModel> {
    const current = await this.modelDocument(versionId);
    await this.refuseWhileUsed(versionId, 'deleted');
    await this.models.deleteOne({ _id: versionId });
    await this.sources.deleteOne({ _id: versionId });
    this.dereferenced.delete(versionId);
    return modelView(current);
  }

  async getModel(versionId: string): Promise<IntegrationModel> {
    const doc = await this.modelDocument(versionId);
    return { ...modelView(doc), methods: methodsOf((await this.source(versionId)).openapi, doc.defaultBasePath) };
  }

  async exportModel(versionId: string): Promise<Json> {
    await this.modelDocument(versionId);
    return (await this.source(versionId)).document;
  }

  private async source(versionId: string): Promise<ModelSourceDoc> {
    const source = await this.sources.findOne({ _id: versionId });
    if (source === null) throw new AppError('INTEGRATION_MODEL_NOT_FOUND', `No integration model "${versionId}"`);
    return source;
  }

  async listModels(query: ListQueryOptions): Promise<{ results: IntegrationModel[]; total: number }> {
    const q = toListQuery(query, {
      filter: ['versionId', 'title', 'version', 'app'],
      sort: ['versionId', 'title', 'version', 'created', 'lastUpdated'],
      defaultSort: { versionId: 1 },
    });
    const [docs, total] = await Promise.all([
      this.models.find(q.filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.models.countDocuments(q.filter),
    ]);
    return { results: docs.map((d) => modelView(d)), total };
  }

  private async checked(document: Json): Promise<ModelCheck & { openapi: Json }> {
    const check = await checkModel(document);
    if (!check.valid || check.openapi === undefined) {
      const shown = check.errors
        .slice(0, 5)
        .map((e) => `${e.path || '(document)'} ${e.message}`)
        .join('; ');
      throw new AppError(
        'INTEGRATION_MODEL_INVALID',
        `The OpenAPI document is not valid (${check.errors.length} finding${check.errors.length === 1 ? '' : 's'}): ${shown}`,
        { details: check.errors },
      );
    }
    return { ...check, openapi: check.openapi };
  }

  private modelDoc(document: Json, check: ModelCheck & { openapi: Json }, by: string): ModelDoc {
    const info = document.info as Json;
    const now = new Date().toISOString();
    const server = defaultServer(check.openapi);
    return {
      _id: versionIdOf(document),
      versionId: versionIdOf(document),
      title: String(info.title),
      version: String(info.version),
      ...(typeof info.description === 'string' ? { description: info.description } : {}),
      specification: check.specification ?? '',
      app: appName(String(info.title)),
      servers: (Array.isArray(check.openapi.servers) ? check.openapi.servers.filter(isObject) : []).map((s) => ({
        url: String(s.url ?? ''),
      })),
      defaultBasePath: server.base_path,
      methodCount: operationsOf(check.openapi).length,
      warnings: check.warnings,
      server,
      created: now,
      createdBy: by,
      lastUpdated: now,
      lastUpdatedBy: by,
    };
  }

  private async modelDocument(versionId: string): Promise<ModelDoc> {
    const doc = await this.models.findOne({ _id: versionId });
    if (doc === null) throw new AppError('INTEGRATION_MODEL_NOT_FOUND', `No integration model "${versionId}"`);
    return doc;
  }

  private async refuseWhileUsed(versionId: string, what: string): Promise<void> {
    const users = await this.integrations.find({ model: versionId }, { projection: { name: 1 }, limit: 5 });
    if (users.length > 0) {
      throw new AppError(
        'INTEGRATION_MODEL_IN_USE',
        `Integration model "${versionId}" cannot be ${what} while integrations use it: ${users.map((u) => u.name).join(', ')}`,
      );
    }
  }

  // ---- integrations ----

  async createIntegration(input: IntegrationProperties, by: string): Promise<IntegrationRecord> {
    if (input.name === undefined) throw invalid('body.properties.name', 'is required');
    if (input.model === undefined) throw invalid('body.properties.model', 'is required: the versionId of an integration model');
    const doc = await this.integrationDoc(input.name, input.model, input.type, input.properties ?? {}, undefined, by);
    try {
      await this.integrations.insertOne(doc);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('INTEGRATION_ALREADY_EXISTS', `An integration "${input.name}" exists`, { cause: err });
      throw err;
    }
    return integrationView(doc);
  }

  async updateIntegration(name: string, input: IntegrationProperties, by: string): Promise<IntegrationRecord> {
    const current = await this.integrationDocument(name);
    if (input.name !== undefined && input.name !== name)
      throw invalid('body.properties.name', `is "${input.name}"; an integration keeps its name ("${name}")`);
    const settings = input.properties ?? (maskSettings(current.settings) as IntegrationSettings);
    const doc = await this.integrationDoc(name, input.model ?? current.model, input.type ?? current.type, settings, current, by);
    await this.integrations.replaceOne({ _id: name }, doc);
    this.forgetIntegration(current);
    return integrationView(doc);
  }

  async deleteIntegration(name: string): Promise<IntegrationRecord> {
    const current = await this.integrationDocument(name);
    await this.integrations.deleteOne({ _id: name });
    this.forgetIntegration(current);
    return integrationView(current);
  }

  async getIntegration(name: string): Promise<IntegrationRecord> {
    return integrationView(await this.integrationDocument(name));
  }

  async listIntegrations(query: ListQueryOptions): Promise<{ results: IntegrationRecord[]; total: number }> {
    const q = toListQuery(query, {
      filter: ['name', 'model', 'type'],
      sort: ['name', 'model', 'created', 'lastUpdated'],
      defaultSort: { name: 1 },
    });
    const [docs, total] = await Promise.all([
      this.integrations.find(q.filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.integrations.countDocuments(q.filter),
    ]);
    return { results: docs.map(integrationView), total };
  }

  /** `GET /schema/integrations/:name`: the JSON Schema of the properties, with the model's servers and methods as a help. */
  async integrationSchema(name: string): Promise<Json> {
    const doc = await this.integrationDocument(name);
    const model = await this.modelDocument(doc.model);
    return {
      ...(integrationPropertiesSchema as unknown as Json),
      title: `Properties of integration "${name}" (model ${model.versionId})`,
      examples: [{ name, model: model.versionId, type: doc.type, properties: { server: { ...model.server } } }],
    };
  }

  private async integrationDoc(
    name: string,
    modelId: string,
    type: string | undefined,
    given: IntegrationSettings,
    current: IntegrationDoc | undefined,
    by: string,
  ): Promise<IntegrationDoc> {
    const settings = parseAs(integrationSettingsSchema, given);
    const model = await this.models.findOne({ _id: modelId });
    if (model === null)
      throw invalid('body.properties.model', `names no integration model ("${modelId}"); create it with POST /integration-models`);
    const fallback = model.server;
    const server = { ...fallback, ...(settings.server ?? {}) };
    if (server.host === undefined)
      throw invalid('body.properties.properties.server.host', `is required: model "${modelId}" names no absolute server`);
    checkAuthentication(settings.authentication, 'body.properties.properties.authentication');
    const now = new Date().toISOString();
    const complete: Json = {
      ...settings,
      server: {
        protocol: server.protocol ?? (settings.tls?.enabled === false ? 'http' : 'https'),
        host: server.host,
        port: server.port ?? ((server.protocol ?? 'https') === 'http' ? 80 : 443),
        base_path: normalizeBasePath(server.base_path),
      },
    };
    return {
      _id: name,
      name,
      model: modelId,
      type: type ?? 'Application',
      settings: sealSettings(complete, this.secrets, current?.settings, 'body.properties.properties'),
      version: (current?.version ?? 0) + 1,
      created: current?.created ?? now,
      createdBy: current?.createdBy ?? by,
      lastUpdated: now,
      lastUpdatedBy: by,
    };
  }

  private async integrationDocument(name: string): Promise<IntegrationDoc> {
    const doc = await this.integrations.findOne({ _id: name });
    if (doc === null) throw new AppError('INTEGRATION_NOT_FOUND', `No integration "${name}"`);
    return doc;
  }

  private forgetIntegration(doc: IntegrationDoc): void {
    this.methods.delete(`${doc.name}@${doc.version}`);
    this.http.forget(`integration:${doc.name}@${doc.version}`);
  }

  // ---- calls ----

  /** Integrations a task's app answers to: by name, by the model's app (title without punctuation), or by the model's versionId; case-insensitive. */
  async integrationsFor(app: string): Promise<IntegrationDoc[]> {
    const all = await this.integrations.find({}, { projection: { name: 1, model: 1, version: 1 } });
    const byName = all.filter((i) => same(i.name, app));
    if (byName.length > 0) return byName;
    const models = await this.models.find({}, { projection: { versionId: 1, app: 1 } });
    const matching = new Set(models.filter((m) => same(m.app, app) || same(m.versionId, app)).map((m) => m.versionId));
    return all.filter((i) => matching.has(i.model));
  }

  /** Calls the method of an integration with a task's incoming variables; a non-2xx answer throws INTEGRATION_CALL_FAILED with the answer in details. */
  async callMethod(
    name: string,
    method: string,
    incoming: Record<string, unknown>,
    timeoutMs: number | undefined,
  ): Promise<OutboundResponse> {
    const doc = await this.integrationDocument(name);
    const methods = await this.methodsOf(doc);
    const builder = methods.get(method) ?? methods.get(method.toLowerCase());
    if (builder === undefined) {
      throw new AppError(
        'TASK_METHOD_UNKNOWN',
        `Integration "${name}" (model ${doc.model}, base path "${String((doc.settings.server as Json | undefined)?.base_path ?? '')}") has no method "${method}"`,
      );
    }
    const { adapter_id: _instance, ...variables } = incoming;
    const request = builder.build(variables);
    const settings = openSettings(doc.settings, this.secrets) as IntegrationSettings;
    const bound = timeoutMs ?? settings.timeoutMs ?? this.calls.integrationTimeoutMs;
    // a model whose paths already carry the base path (GitLab's /api/v4/…) is called at the server's
    // root; one whose server URL held it (PSIRT's /security/advisories/v2) below the base path
    const base = normalizeBasePath(settings.server?.base_path);
    const path = base !== '' && (request.path === base || request.path.startsWith(`${base}/`)) ? request.path : `${base}${request.path}`;
    const answer = await this.http.send(
      {
        label: `integration "${name}"`,
        cacheKey: `integration:${doc.name}@${doc.version}`,
        baseUrl: serverUrl({ server: { ...settings.server, base_path: '' } }),
        authentication: settings.authentication,
        tls: settings.tls,
      },
      { method: request.method, path, headers: request.headers, body: request.body, timeoutMs: bound },
    );
    if (answer.status < 200 || answer.status >= 300) {
      throw new AppError('INTEGRATION_CALL_FAILED', `Integration "${name}" answered ${answer.status} to ${method}`, { details: answer });
    }
    return answer;
  }

  private methodsOf(doc: IntegrationDoc): Promise<ResolvedMethods> {
    const key = `${doc.name}@${doc.version}`;
    let methods = this.methods.get(key);
    if (methods === undefined) {
      methods = this.compileMethods(doc);
      this.methods.set(key, methods);
      methods.catch(() => this.methods.delete(key));
    }
    return methods;
  }

  private async compileMethods(doc: IntegrationDoc): Promise<ResolvedMethods> {
    const openapi = await this.dereferencedModel(doc.model);
    const basePath = String((doc.settings.server as Json | undefined)?.base_path ?? '');
    // validators are compiled on first use of a method, not for the 1000 operations of a large model
    const lazy = new Map<string, () => OperationRequestBuilder>();
    for (const op of operationsOf(openapi)) {
      const generated = methodName(op.method, op.path, basePath);
      let built: OperationRequestBuilder | undefined;
      const make = () => (built ??= new OperationRequestBuilder(op, `${doc.name}.${generated}`));
      for (const key of [generated, op.operationId, generated.toLowerCase()]) if (key !== undefined && !lazy.has(key)) lazy.set(key, make);
    }
    return { get: (name) => lazy.get(name)?.() };
  }

  private dereferencedModel(versionId: string): Promise<Json> {
    let doc = this.dereferenced.get(versionId);
    if (doc === undefined) {
      doc = this.source(versionId).then((m) => dereferenceModel(m.openapi));
      this.dereferenced.set(versionId, doc);
      doc.catch(() => this.dereferenced.delete(versionId));
    }
    return doc;
  }
}

/** `<info.title>:<info.version>`. */
export function versionIdOf(document: Json): string {
  const info = document.info as Json;
  return `${String(info.title)}:${String(info.version)}`;
}

/** The base URL of server settings. */
export function serverUrl(settings: {
  server?: { protocol?: string; host?: string; port?: number; base_path?: string } | undefined;
}): string {
  const s = settings.server ?? {};
  const host = (s.host ?? '').includes(':') ? `[${s.host ?? ''}]` : (s.host ?? '');
  return `${s.protocol ?? 'https'}://${host}${s.port !== undefined ? `:${s.port}` : ''}${normalizeBasePath(s.base_path)}`;
}

/** Refuses authentication settings that lack what their type needs, naming the member. */
export function checkAuthentication(auth: IntegrationSettings['authentication'], at: string): void {
  if (auth === undefined) return;
  const needs: Record<string, readonly string[]> = {
    none: [],
    basic: ['username', 'password'],
    bearer: ['token'],
    apiKey: ['name', 'api_key'],
    oauthClientCredentials: ['token_url', 'client_id', 'client_secret'],
  };
  for (const member of needs[auth.type] ?? []) {
    const v = (auth as Json)[member];
    if (typeof v !== 'string' || v === '') throw invalid(`${at}.${member}`, `is required for ${auth.type} authentication`);
  }
}

function modelExists(versionId: string, cause?: unknown): AppError {
  return new AppError(
    'INTEGRATION_MODEL_ALREADY_EXISTS',
    `An integration model "${versionId}" exists; a new version (info.version) is a new model`,
    cause === undefined ? {} : { cause },
  );
}

function invalid(member: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${member} ${message}`, { details: [{ member, message }] });
}

function modelView(doc: ModelDoc): IntegrationModel {
  const { _id, server: _server, ...rest } = doc;
  return rest;
}

function integrationView(doc: IntegrationDoc): IntegrationRecord {
  return {
    metadata: { isActive: true },
    data: {
      name: doc.name,
      model: doc.model,
      type: doc.type,
      isEncrypted: true,
      profiling: false,
      virtual: false,
      properties: maskSettings(doc.settings),
      version: doc.version,
      created: doc.created,
      createdBy: doc.createdBy,
      lastUpdated: doc.lastUpdated,
      lastUpdatedBy: doc.lastUpdatedBy,
    },
  };
}
