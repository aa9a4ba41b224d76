import { AppError, integrationPropertiesSchema, integrationSettingsSchema, parseAs } from '@nap/contracts';
import type { Authentication, BodyOf, IntegrationModel, IntegrationRecord, IntegrationSettings } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { isRecord, ownValue } from '@nap/util';
import type { IntegrationDoc } from '../store/integrations';
import type { ModelDoc } from '../store/integration-models';
import { appName, normalizeBasePath } from './method-names';
import { checkModel, defaultServer, operationsOf } from './openapi-model';
import type { Json, ModelCheck } from './openapi-model';
import { maskSettings, sealSettings } from './sealed-settings';
import { invalidMember } from './validation-error';

/**
 * Integration models (OpenAPI documents named `<info.title>:<info.version>`) and integrations
 * (configured instances of a model with sealed credentials), which workflow tasks call through.
 */

/** Default bound of one call, ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** `properties` of the integration bodies. */
export type IntegrationProperties = BodyOf<'admin.createIntegration'>['properties'];

/** A document checked as a model: refused (400 `INTEGRATION_MODEL_INVALID`, the first findings named) unless valid. */
export async function validModel(document: Json): Promise<ModelCheck & { openapi: Json }> {
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

/** `<info.title>:<info.version>`. */
export function versionIdOf(document: Json): string {
  const info = document.info as Json;
  return `${String(info.title)}:${String(info.version)}`;
}

/** The record of a checked model (the documents themselves are stored apart). */
export function modelRecordOf(document: Json, check: ModelCheck & { openapi: Json }, by: string, now: string): ModelDoc {
  const info = document.info as Json;
  const server = defaultServer(check.openapi);
  return {
    _id: versionIdOf(document),
    versionId: versionIdOf(document),
    title: String(info.title),
    version: String(info.version),
    ...(typeof info.description === 'string' ? { description: info.description } : {}),
    specification: check.specification ?? '',
    app: appName(String(info.title)),
    servers: (Array.isArray(check.openapi.servers) ? check.openapi.servers.filter(isRecord) : []).map((s) => ({
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

/** A model as answered. */
export function modelView(doc: ModelDoc): IntegrationModel & { model: string } {
  const { _id, server: _server, ...rest } = doc;
  // model: the name the other routes take (its versionId), which ipctl reads and deletes by
  return { ...rest, model: rest.versionId };
}

/** Refuses replacing or deleting a model that integrations use, naming them. */
export function checkUnused(versionId: string, what: string, users: string[]): void {
  if (users.length > 0) {
    throw new AppError(
      'INTEGRATION_MODEL_IN_USE',
      `Integration model "${versionId}" cannot be ${what} while integrations use it: ${users.join(', ')}`,
    );
  }
}

/**
 * An integration as stored: its settings checked, the server completed from the model's, secrets
 * sealed (a secret sent as `********` keeps the one in `current`), the version one up.
 */
export function integrationRecordOf(
  spec: { name: string; modelId: string; type: string | undefined; settings: IntegrationSettings },
  model: ModelDoc | null,
  current: IntegrationDoc | undefined,
  secrets: SecretBox,
  by: string,
  now: string,
): IntegrationDoc {
  const { name, modelId } = spec;
  const settings = parseAs(integrationSettingsSchema, spec.settings);
  if (model === null)
    throw invalidMember('body.properties.model', `names no integration model ("${modelId}"); create it with POST /integration-models`);
  const server = { ...model.server, ...(settings.server ?? {}) };
  if (server.host === undefined)
    throw invalidMember('body.properties.properties.server.host', `is required: model "${modelId}" names no absolute server`);
  checkAuthentication(settings.authentication, 'body.properties.properties.authentication');
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
    type: spec.type ?? 'Application',
    settings: sealSettings(complete, secrets, current?.settings, 'body.properties.properties'),
    version: (current?.version ?? 0) + 1,
    created: current?.created ?? now,
    createdBy: current?.createdBy ?? by,
    lastUpdated: now,
    lastUpdatedBy: by,
  };
}

/**
 * What the process that makes an integration's calls (the admin service) holds for every
 * integration: the members of the original platform's record that are the running process's there.
 */
export interface IntegrationHost {
  /** The level the admin service logs at now (`GET /applications/AdminEssentials`, the active profile's loggerProps). */
  logLevel: string;
  /** The V8 heap limit of that process, MiB (what the original's `systemProps.maxOldSpaceSize` sets). */
  maxOldSpaceSizeMb: number;
}

/**
 * An integration as answered: secrets `********`. `loggerProps`, `systemProps` and
 * `eventDeduplication` are what the platform applies: an integration runs in no process of its own,
 * so its calls are logged by the admin service at that service's level, within that process's heap,
 * and it emits no events to deduplicate (`active` false, no cache).
 */
export function integrationView(doc: IntegrationDoc, host: IntegrationHost): IntegrationRecord {
  return {
    metadata: { isActive: true },
    data: {
      name: doc.name,
      model: doc.model,
      type: doc.type,
      loggerProps: {
        description: 'Calls of the integration are logged by the admin service (application AdminEssentials), at its level',
        log_level: host.logLevel,
        console_level: host.logLevel,
      },
      isEncrypted: true,
      profiling: false,
      virtual: false,
      systemProps: { maxOldSpaceSize: host.maxOldSpaceSizeMb },
      eventDeduplication: { active: false, cacheTtl: 0, algorithm: 'md5', uniqueProps: [] },
      properties: maskSettings(doc.settings),
      version: doc.version,
      created: doc.created,
      createdBy: doc.createdBy,
      lastUpdated: doc.lastUpdated,
      lastUpdatedBy: doc.lastUpdatedBy,
    },
  };
}

/** `GET /schema/integrations/:name`: the JSON Schema of the properties, with the model's servers and methods as a help. */
export function integrationSchemaOf(doc: IntegrationDoc, model: ModelDoc): Json {
  return {
    ...(integrationPropertiesSchema as unknown as Json),
    title: `Properties of integration "${doc.name}" (model ${model.versionId})`,
    examples: [{ name: doc.name, model: model.versionId, type: doc.type, properties: { server: { ...model.server } } }],
  };
}

/** Integrations whose model a task's app names: by the model's app (title without punctuation) or versionId; case-insensitive. */
export function integrationsOfModels(
  integrations: { name: string; model: string }[],
  models: { versionId: string; app: string }[],
  app: string,
): { name: string; model: string }[] {
  const matching = new Set(models.filter((m) => sameName(m.app, app) || sameName(m.versionId, app)).map((m) => m.versionId));
  return integrations.filter((i) => matching.has(i.model));
}

/** Names as tasks give them: case-insensitive. */
export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Where and how to call: the base URL (protocol, host, port, base path), opened authentication, TLS. */
export interface OutboundTarget {
  /** Names the target in messages and keys its OAuth token cache (an integration or adapter name plus its version). */
  label: string;
  cacheKey: string;
  baseUrl: string;
  authentication?: Authentication | undefined;
  tls?: { rejectUnauthorized?: boolean | undefined; ca?: string | undefined } | undefined;
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
  for (const member of ownValue(needs, auth.type) ?? []) {
    const v = (auth as Json)[member];
    if (typeof v !== 'string' || v === '') throw invalidMember(`${at}.${member}`, `is required for ${auth.type} authentication`);
  }
}
