import { CATALOG, ERROR_CODES, RELEASE } from '@nap/contracts';
import type { JsonSchema, OperationDef } from '@nap/contracts';

type OpenApiDoc = Record<string, unknown>;

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status', 'code', 'message'],
  properties: {
    status: { const: 'error' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    message: { type: 'string' },
    details: {},
    requestId: { type: 'string' },
  },
};

/** Express `:param` to OpenAPI `{param}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Strips `$id` (OpenAPI 3.1 allows it, but duplicated ids across operations confuse viewers). */
function clean(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema) return undefined;
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : value))) as JsonSchema;
}

function parameters(op: OperationDef): unknown[] {
  const out: unknown[] = [];
  for (const where of ['params', 'query'] as const) {
    const schema = op.request[where] as { properties?: Record<string, JsonSchema>; required?: string[] } | undefined;
    for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
      const isObject = prop.type === 'object';
      out.push({
        name,
        in: where === 'params' ? 'path' : 'query',
        required: where === 'params' || (schema?.required ?? []).includes(name),
        schema: clean(prop),
        ...(isObject ? { style: 'deepObject', explode: true } : {}),
      });
    }
  }
  return out;
}

/** The OpenAPI 3.1 document of the whole catalog. */
export function buildOpenApi(): OpenApiDoc {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of CATALOG) {
    if (!op.http) continue;
    const path = toOpenApiPath(op.http.path);
    const entry = (paths[path] ??= {});
    const body = clean(op.request.body);
    const accepts = op.accepts ?? ['application/json'];
    entry[op.http.method.toLowerCase()] = {
      operationId: op.id,
      summary: op.summary,
      ...(op.notes ? { description: op.notes } : {}),
      tags: [op.service],
      'x-roles': op.roles,
      'x-timeout-ms': op.timeoutMs,
      security: op.auth === 'public' ? [] : [{ bearer: [] }, { basic: [] }, { cookie: [] }],
      parameters: parameters(op),
      ...(body ? { requestBody: { required: true, content: Object.fromEntries(accepts.map((type) => [type, { schema: body }])) } } : {}),
      responses: {
        [String(op.response.status)]: {
          description: 'Success',
          ...(op.response.body ? { content: { [op.response.contentType ?? 'application/json']: { schema: responseSchema(op) } } } : {}),
        },
        default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'NAP HTTP interface',
      version: RELEASE,
      description: 'Network automation platform. Log in with POST /login, then send the token as a Bearer token.',
    },
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        basic: { type: 'http', scheme: 'basic' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'token' },
      },
    },
  };
}

/**
 * The schema of a success body as HTTP clients see it. An event stream's catalog schema describes the
 * first event (the snapshot the service answers over the bus); over HTTP the body is the stream itself.
 */
function responseSchema(op: OperationDef): unknown {
  const body = clean(op.response.body);
  if (op.response.contentType !== 'text/event-stream') return body;
  return {
    type: 'string',
    description: 'text/event-stream: the first event (snapshot) carries `snapshotSchema`; then one event per job or task event',
    'x-snapshotSchema': body,
  };
}
