import { AppError } from '@nap/contracts';
import type { IntegrationSettings, OutboundResponse } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { serverUrl } from '../domain/integrations';
import { methodName, normalizeBasePath } from '../domain/method-names';
import { dereferenceModel, operationsOf } from '../domain/openapi-model';
import type { Json } from '../domain/openapi-model';
import { OperationRequestBuilder } from '../domain/request-builder';
import { openSettings } from '../domain/sealed-settings';
import type { IntegrationDoc } from '../store/integrations';
import type { OutboundHttp } from './outbound-http';

/** The methods of an integration by generated name (also lower-cased) and operationId; each compiles its validators on first use. */
interface ResolvedMethods {
  get(name: string): OperationRequestBuilder | undefined;
}

/**
 * Calls the workflow tasks make through integrations: the method of the integration's model built
 * into a request (its validators compiled on first use), the integration's secrets opened only
 * here, and sent through the outbound HTTP client. Models are dereferenced once per versionId and
 * methods compiled once per integration version.
 */
export class IntegrationCalls {
  /** Dereferenced documents by versionId, built on first call. */
  private readonly dereferenced = new Map<string, Promise<Json>>();
  /** Compiled methods by integration name and version. */
  private readonly methods = new Map<string, Promise<ResolvedMethods>>();

  constructor(
    private readonly http: OutboundHttp,
    private readonly secrets: SecretBox,
    /** The OpenAPI 3.x document of a model, not dereferenced. */
    private readonly openapiOf: (versionId: string) => Promise<Json>,
    /** The bound of a call that names none (the active profile's integrationProps.timeout; it changes while the service runs). */
    private readonly calls: { readonly integrationTimeoutMs: number },
  ) {}

  /** Calls the method of an integration with a task's incoming variables; a non-2xx answer throws INTEGRATION_CALL_FAILED with the answer in details. */
  async call(
    doc: IntegrationDoc,
    method: string,
    incoming: Record<string, unknown>,
    timeoutMs: number | undefined,
  ): Promise<OutboundResponse> {
    const { name } = doc;
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

  /** Drops what was built from a model that was replaced or deleted. */
  forgetModel(versionId: string): void {
    this.dereferenced.delete(versionId);
  }

  /** Drops what was built for a version of an integration that was replaced or deleted (its methods, its connections and tokens). */
  forgetIntegration(doc: IntegrationDoc): void {
    this.methods.delete(`${doc.name}@${doc.version}`);
    this.http.forget(`integration:${doc.name}@${doc.version}`);
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
      doc = this.openapiOf(versionId).then((openapi) => dereferenceModel(openapi));
      this.dereferenced.set(versionId, doc);
      doc.catch(() => this.dereferenced.delete(versionId));
    }
    return doc;
  }
}
