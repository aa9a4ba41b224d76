import Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { AppError } from '@nap/contracts';
import { isRecord, ownValue, setOwn } from '@nap/util';
import { camelCase } from './method-names';
import type { Json, ModelOperation } from './openapi-model';

/**
 * Turns a task's incoming variables into the HTTP request an OpenAPI operation describes: path,
 * query, header and cookie parameters serialized by their `style` and `explode`, and the request
 * body. Values are validated with Ajv against the operation's schemas before anything is sent.
 */

/** A request ready to send, below the server's base URL. */
export interface BuiltRequest {
  method: string;
  /** The path with its parameters filled in and the query string appended. */
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  style: string;
  explode: boolean;
  allowReserved: boolean;
  schema: Json;
  content?: string;
}

const DEFAULT_STYLE: Record<Parameter['in'], string> = { path: 'simple', query: 'form', header: 'simple', cookie: 'form' };

function parametersOf(operation: Json): Parameter[] {
  const list = Array.isArray(operation.parameters) ? operation.parameters.filter(isRecord) : [];
  const out: Parameter[] = [];
  for (const p of list) {
    const where = p.in;
    if (typeof p.name !== 'string' || (where !== 'path' && where !== 'query' && where !== 'header' && where !== 'cookie')) continue;
    const style = typeof p.style === 'string' ? p.style : DEFAULT_STYLE[where];
    const content = isRecord(p.content) ? Object.keys(p.content)[0] : undefined;
    const contentSchema = content !== undefined && isRecord(p.content) ? (p.content[content] as Json | undefined)?.schema : undefined;
    out.push({
      name: p.name,
      in: where,
      required: where === 'path' || p.required === true,
      style,
      explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
      allowReserved: p.allowReserved === true,
      schema: isRecord(p.schema) ? p.schema : isRecord(contentSchema) ? contentSchema : {},
      ...(content !== undefined ? { content } : {}),
    });
  }
  return out;
}

interface BodySpec {
  mediaType: string;
  schema: Json;
  required: boolean;
  /** The name a 2.0 document gave its body parameter (`x-codegen-request-body-name`). */
  altName?: string;
}

const PREFERRED_MEDIA = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

function bodyOf(operation: Json): BodySpec | undefined {
  const rb = operation.requestBody;
  if (!isRecord(rb) || !isRecord(rb.content)) return undefined;
  const types = Object.keys(rb.content);
  const mediaType = PREFERRED_MEDIA.find((m) => types.includes(m)) ?? types.find((t) => /json/i.test(t)) ?? types[0];
  if (mediaType === undefined) return undefined;
  const media = rb.content[mediaType];
  const alt = operation['x-codegen-request-body-name'];
  return {
    mediaType,
    schema: isRecord(media) && isRecord(media.schema) ? media.schema : {},
    required: rb.required === true,
    ...(typeof alt === 'string' ? { altName: alt } : {}),
  };
}

function enc(value: string, allowReserved = false): string {
  const e = encodeURIComponent(value);
  return allowReserved ? e.replace(/%(2F|3A|3F|23|5B|5D|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/gi, (m) => decodeURIComponent(m)) : e;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** `simple`, `label` and `matrix` (path and header parameters). */
function serializePathLike(p: Parameter, value: unknown): string {
  const prefix = p.style === 'label' ? '.' : p.style === 'matrix' ? `;${p.name}` : '';
  const e = (s: string) => (p.in === 'header' ? s : enc(s));
  if (Array.isArray(value)) {
    const items = value.map((v) => e(text(v)));
    if (p.style === 'label') return `.${items.join(p.explode ? '.' : ',')}`;
    if (p.style === 'matrix') return p.explode ? items.map((i) => `;${p.name}=${i}`).join('') : `${prefix}=${items.join(',')}`;
    return items.join(',');
  }
  if (isRecord(value)) {
    const entries = Object.entries(value).map(([k, v]) => [e(k), e(text(v))] as const);
    const sep = p.style === 'label' && p.explode ? '.' : p.style === 'matrix' && p.explode ? ';' : ',';
    const joined = p.explode ? entries.map(([k, v]) => `${k}=${v}`).join(sep) : entries.flat().join(',');
    if (p.style === 'label') return `.${joined}`;
    if (p.style === 'matrix') return p.explode ? `;${joined}` : `${prefix}=${joined}`;
    return joined;
  }
  const v = e(text(value));
  return p.style === 'matrix' ? `${prefix}=${v}` : `${prefix}${v}`;
}

/** `form`, `spaceDelimited`, `pipeDelimited` and `deepObject` (query and cookie parameters): `name=value` pairs, encoded. */
function serializeQuery(p: Parameter, value: unknown): string[] {
  const name = enc(p.name);
  const e = (s: string) => enc(s, p.allowReserved);
  if (p.content !== undefined) return [`${name}=${e(JSON.stringify(value))}`];
  if (Array.isArray(value)) {
    const items = value.map((v) => e(text(v)));
    if (p.explode) return items.map((i) => `${name}=${i}`);
    const sep = p.style === 'spaceDelimited' ? '%20' : p.style === 'pipeDelimited' ? '|' : ',';
    return [`${name}=${items.join(sep)}`];
  }
  if (isRecord(value)) {
    if (p.style === 'deepObject') return Object.entries(value).map(([k, v]) => `${name}%5B${enc(k)}%5D=${e(text(v))}`);
    if (p.explode) return Object.entries(value).map(([k, v]) => `${enc(k)}=${e(text(v))}`);
    return [
      `${name}=${Object.entries(value)
        .map(([k, v]) => `${enc(k)},${e(text(v))}`)
        .join(',')}`,
    ];
  }
  return [`${name}=${e(text(value))}`];
}

/** Schemas of the platform being replaced use OpenAPI keywords Ajv does not know; they are annotations. */
function newAjv(coerceTypes: boolean): Ajv {
  // ownProperties: a parameter or member named constructor or toString that is not given is absent, not Object's
  const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes, useDefaults: false, validateFormats: false, ownProperties: true });
  for (const keyword of ['example', 'xml', 'externalDocs', 'discriminator', 'x-nullable']) ajv.addKeyword(keyword);
  return ajv;
}

/** Remaining (circular) references accept anything: the parts a reference leads back into are not validated. */
function withoutRefs(schema: unknown, seen = new WeakMap<object, unknown>()): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withoutRefs(s, seen));
  if (!isRecord(schema)) return schema;
  const done = seen.get(schema);
  if (done !== undefined) return done;
  if (typeof schema.$ref === 'string') return {};
  const out: Json = {};
  seen.set(schema, out);
  for (const [k, v] of Object.entries(schema)) setOwn(out, k, withoutRefs(v, seen));
  return out;
}

/** An operation ready to turn incoming variables into requests; compiled once per model operation. */
export class OperationRequestBuilder {
  private readonly parameters: Parameter[];
  private readonly body: BodySpec | undefined;
  private readonly validateParams: ValidateFunction;
  private readonly validateBody: ValidateFunction | undefined;

  constructor(
    private readonly op: ModelOperation,
    private readonly label: string,
  ) {
    this.parameters = parametersOf(op.operation);
    this.body = bodyOf(op.operation);
    const properties: Json = {};
    const required: string[] = [];
    for (const p of this.parameters) {
      setOwn(properties, p.name, withoutRefs(p.schema));
      if (p.required) required.push(p.name);
    }
    this.validateParams = newAjv(true).compile({ type: 'object', properties, required });
    this.validateBody = this.body !== undefined ? newAjv(false).compile(withoutRefs(this.body.schema) as Json) : undefined;
  }

  /** The names of the incoming variables the operation reads: parameters in camelCase, and `body`. */
  variableNames(): string[] {
    return [...this.parameters.map((p) => camelCase(p.name)), ...(this.body ? ['body'] : [])];
  }

  /** Builds the request from a task's incoming variables; throws 400 TASK_INPUT_INVALID naming each problem. */
  build(incoming: Record<string, unknown>): BuiltRequest {
    const values: Json = {};
    for (const p of this.parameters) {
      // own members only: a parameter named constructor or toString that is not given has no value
      const v = ownValue(incoming, camelCase(p.name)) ?? ownValue(incoming, p.name);
      if (v !== undefined && v !== null && v !== '') setOwn(values, p.name, v);
    }
    const problems: { member: string; message: string }[] = [];
    if (!this.validateParams(values)) {
      for (const e of this.validateParams.errors ?? []) {
        const missing = e.keyword === 'required' ? String((e.params as { missingProperty?: unknown }).missingProperty) : undefined;
        const top = missing ?? e.instancePath.split('/')[1] ?? '';
        const param = this.parameters.find((p) => p.name === top);
        const member = `incoming.${param ? camelCase(param.name) : top}${
          missing === undefined
            ? e.instancePath
                .split('/')
                .slice(2)
                .map((s) => `.${s}`)
                .join('')
            : ''
        }`;
        problems.push({
          member,
          message:
            missing !== undefined ? `is required (${param?.in ?? 'parameter'} parameter "${missing}")` : (e.message ?? 'is not valid'),
        });
      }
    }
    let bodyValue: unknown;
    if (this.body !== undefined) {
      bodyValue =
        incoming.body ??
        (this.body.altName !== undefined
          ? (ownValue(incoming, camelCase(this.body.altName)) ?? ownValue(incoming, this.body.altName))
          : undefined);
      const props = isRecord(this.body.schema.properties) ? Object.keys(this.body.schema.properties) : [];
      if (bodyValue === undefined && props.length > 0) {
        // form bodies of converted 2.0 documents: their members come as variables of their own
        const assembled: Json = {};
        for (const name of props) {
          const v = ownValue(incoming, camelCase(name)) ?? ownValue(incoming, name);
          if (v !== undefined) setOwn(assembled, name, v);
        }
        if (Object.keys(assembled).length > 0) bodyValue = assembled;
      }
      if (bodyValue === undefined && this.body.required)
        problems.push({ member: 'incoming.body', message: `is required (${this.body.mediaType})` });
      if (bodyValue !== undefined && this.validateBody !== undefined && !this.validateBody(bodyValue)) {
        for (const e of this.validateBody.errors ?? [])
          problems.push({ member: `incoming.body${e.instancePath.replace(/\//g, '.')}`, message: e.message ?? 'is not valid' });
      }
    }
    if (problems.length > 0) {
      throw new AppError('TASK_INPUT_INVALID', `${this.label}: ${problems.map((p) => `${p.member} ${p.message}`).join('; ')}`, {
        details: problems,
      });
    }

    let path = this.op.path;
    const query: string[] = [];
    const headers: Record<string, string> = {};
    const cookies: string[] = [];
    for (const p of this.parameters) {
      const v = ownValue(values, p.name);
      if (v === undefined) continue;
      if (p.in === 'path') path = path.split(`{${p.name}}`).join(serializePathLike(p, v));
      else if (p.in === 'query') query.push(...serializeQuery(p, v));
      else if (p.in === 'header') setOwn(headers, p.name.toLowerCase(), serializePathLike(p, v));
      else cookies.push(...serializeQuery({ ...p, allowReserved: false }, v));
    }
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    this.refuseDotSegments(path);
    let body: string | undefined;
    if (bodyValue !== undefined) {
      const media = this.body?.mediaType ?? 'application/json';
      if (/x-www-form-urlencoded|multipart\/form-data/i.test(media) && isRecord(bodyValue)) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = Object.entries(bodyValue)
          .map(([k, v]) => `${enc(k)}=${enc(text(v))}`)
          .join('&');
      } else if (/json/i.test(media) || typeof bodyValue !== 'string') {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(bodyValue);
      } else {
        headers['content-type'] = media;
        body = bodyValue;
      }
    }
    return {
      method: this.op.method,
      path: query.length > 0 ? `${path}?${query.join('&')}` : path,
      headers,
      ...(body !== undefined ? { body } : {}),
    };
  }

  /**
   * A path parameter of `.` or `..` (or `%2e%2e`, which URL parsers read alike) would take the
   * request out of the operation's path, to any path of the integration's host with its
   * credentials: refused, naming the parameters of that segment.
   */
  private refuseDotSegments(path: string): void {
    const template = this.op.path.split('/');
    const built = path.split('/');
    // path parameters are percent-encoded, `/` too: the filled-in path has the template's segments
    if (built.length !== template.length) return;
    const problems: { member: string; message: string }[] = [];
    built.forEach((segment, i) => {
      const own = template[i] ?? '';
      if (!DOT_SEGMENT.test(segment) || DOT_SEGMENT.test(own)) return;
      for (const p of this.parameters)
        if (p.in === 'path' && own.includes(`{${p.name}}`))
          problems.push({
            member: `incoming.${camelCase(p.name)}`,
            message: `must not make the path segment "${segment}" (path parameter "${p.name}")`,
          });
    });
    if (problems.length > 0)
      throw new AppError('TASK_INPUT_INVALID', `${this.label}: ${problems.map((p) => `${p.member} ${p.message}`).join('; ')}`, {
        details: problems,
      });
  }
}

/** A path segment URL parsers resolve as `.` or `..` (WHATWG URL: `.`, `%2e`, in either case). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
