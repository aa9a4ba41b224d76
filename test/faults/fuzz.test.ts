import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * A fuzz of every operation of /openapi.json with hostile requests: bodies nested 10,000 levels
 * deep, huge strings, every member with the wrong type, bodies of the wrong JSON type,
 * prototype-pollution keys, malformed percent-encoding and very long ids in path parameters, hostile
 * query strings. It passes only if no answer is a 500, every error is the platform's JSON error
 * body, no request is held past its operation's timeout, the process keeps answering, and nothing
 * reached Object.prototype. Part of the fault campaign (`npm run test:faults`), not of `npm test`.
 *
 * The cases are derived from the operation's own schemas, not drawn at random, so a failure repeats.
 */

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
};
type OpenApiOperation = {
  operationId: string;
  'x-timeout-ms': number;
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
};
type Probe = {
  operation: string;
  isPublic: boolean;
  what: string;
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  timeoutMs: number;
};
type Finding = { probe: Probe; status: number | string; body: string };

const CONCURRENCY = 8;
const DEEP = 10_000;
const HUGE = 'A'.repeat(600_000);
const LONG_ID = 'i'.repeat(10_000);

let platform: TestPlatform;
/** Basic credentials: a probe that logs the session out (GET /logout) must not leave the rest unauthenticated. */
let basic: string;
/** Probes of operations behind credentials that were answered 401: they never reached the operation. */
const unauthenticated: string[] = [];

beforeAll(async () => {
  platform = await startTestPlatform({ config: { bodyLimitBytes: 1_048_576 } });
  basic = `Basic ${Buffer.from(`${TEST_ADMIN.username}:${TEST_ADMIN.password}`).toString('base64')}`;
}, 60_000);

afterAll(async () => {
  await platform?.stop();
});

function firstOf(schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  return schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema;
}

function typeOf(schema: Schema | undefined): string | undefined {
  const s = firstOf(schema);
  if (!s) return undefined;
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null');
  return s.type;
}

/** A value of the schema's type with its required members, as a client would start from. */
function skeleton(schema: Schema | undefined, depth = 0): unknown {
  const s = firstOf(schema);
  if (!s || depth > 6) return {};
  if (s.const !== undefined) return s.const;
  if (s.enum && s.enum.length > 0) return s.enum[0];
  switch (typeOf(s)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) out[name] = skeleton(s.properties?.[name], depth + 1);
      return out;
    }
    case 'array':
      return [];
    case 'string':
      return 'fuzz';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return {};
  }
}

/** A value of another JSON type than the schema's. */
function wrongType(schema: Schema | undefined): unknown[] {
  switch (typeOf(schema)) {
    case 'string':
      return [12345, { $gt: '' }, ['x']];
    case 'integer':
    case 'number':
      return ['NaN', -1e308, { $ne: 0 }];
    case 'boolean':
      return ['true', 0];
    case 'array':
      return [{ 0: 'x', length: 1 }, 'x'];
    case 'object':
      return [[], 'x', null];
    default:
      return [null, [], 'x'];
  }
}

function deepJson(depth: number): string {
  return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
}

/** Every probe of one operation. */
function probes(route: string, method: string, op: OpenApiOperation): Probe[] {
  const params = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
  const timeoutMs = op['x-timeout-ms'];
  const base = { operation: op.operationId, isPublic: (op.security ?? []).length === 0, method: method.toUpperCase(), timeoutMs };
  const pathWith = (value: string) => route.replace(/\{[^}]+\}/g, () => value);
  const path = pathWith('fuzz-id');
  const out: Probe[] = [];
  for (const bad of ['%ff', '%', '%zz', '%E0%A4%A', '%00', '..%2F..%2Fetc%2Fpasswd'])
    if (params.length > 0) out.push({ ...base, what: `path parameter ${bad}`, path: pathWith(bad) });
  if (params.length > 0) {
    out.push({ ...base, what: 'a 10,000-character id', path: pathWith(LONG_ID) });
    out.push({ ...base, what: 'an id of 600 four-byte characters', path: pathWith(encodeURIComponent('😀'.repeat(600))) });
    out.push({ ...base, what: 'an id named like a prototype member', path: pathWith('__proto__') });
  }
  out.push({
    ...base,
    what: 'a hostile query string',
    path: `${path}?__proto__[polluted]=1&constructor[prototype][polluted]=1&a[b][c][d][e][f][g][h]=1&limit=-1&skip=abc&sort[$where]=1&${'x'.repeat(4000)}=1`,
  });
  const content = op.requestBody?.content ?? {};
  const json = content['application/json'];
  if (content['application/x-www-form-urlencoded']) {
    out.push({
      ...base,
      what: 'a hostile form body',
      path,
      body: `__proto__[polluted]=1&grant_type=${HUGE.slice(0, 100_000)}`,
      contentType: 'application/x-www-form-urlencoded',
    });
  }
  if (!json) {
    if (method !== 'get')
      out.push({ ...base, what: 'a deep body where none is expected', path, body: deepJson(DEEP), contentType: 'application/json' });
    return out;
  }
  const schema = json.schema;
  const valid = skeleton(schema);
  const send = (what: string, body: string): Probe => ({ ...base, what, path, body, contentType: 'application/json' });
  out.push(send('a body nested 10,000 levels deep', deepJson(DEEP)));
  out.push(
    send(
      'a body nested 10,000 levels deep inside a valid one',
      JSON.stringify(valid)
        .replace(/^\{/, `{"deep":${deepJson(DEEP)},`)
        .replace(/,}$/, '}'),
    ),
  );
  out.push(
    send('a 600 KB string as a member', JSON.stringify({ ...(typeof valid === 'object' && valid !== null ? valid : {}), huge: HUGE })),
  );
  for (const whole of ['[]', '"text"', '123', 'null', 'true', '{', '{"a":1,}', '\u0000'])
    out.push(send(`the body ${JSON.stringify(whole)}`, whole));
  out.push(
    send(
      'prototype-pollution keys',
      `{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},${JSON.stringify(valid).slice(1)}`.replace(/,}$/, '}'),
    ),
  );
  const s = firstOf(schema);
  if (typeOf(s) === 'object' && typeof valid === 'object' && valid !== null) {
    for (const [name, prop] of Object.entries(s?.properties ?? {})) {
      for (const wrong of wrongType(prop))
        out.push(send(`${name} as ${JSON.stringify(wrong)}`, JSON.stringify({ ...valid, [name]: wrong })));
      out.push(send(`${name} as a 600 KB string`, JSON.stringify({ ...valid, [name]: HUGE })));
      const inner = firstOf(prop);
      if (typeOf(inner) === 'object') {
        const innerValid = skeleton(inner);
        for (const [innerName, innerProp] of Object.entries(inner?.properties ?? {})) {
          for (const wrong of wrongType(innerProp).slice(0, 1))
            out.push(
              send(
                `${name}.${innerName} as ${JSON.stringify(wrong)}`,
                JSON.stringify({ ...valid, [name]: { ...(innerValid as object), [innerName]: wrong } }),
              ),
            );
          out.push(
            send(
              `${name}.${innerName} as a 600 KB string`,
              JSON.stringify({ ...valid, [name]: { ...(innerValid as object), [innerName]: HUGE } }),
            ),
          );
        }
        out.push(
          send(
            `${name} with prototype-pollution keys`,
            JSON.stringify({ ...valid }).replace(
              /\}$/,
              `${Object.keys(valid).length > 0 ? ',' : ''}"${name}":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}}`,
            ),
          ),
        );
      }
    }
  }
  return out;
}

async function send(probe: Probe): Promise<Finding | undefined> {
  const headers: Record<string, string> = { authorization: basic };
  if (probe.contentType) headers['content-type'] = probe.contentType;
  // held past its operation's timeout (plus the gateway's own margin) counts as a finding
  const signal = AbortSignal.timeout(probe.timeoutMs + 10_000);
  let status: number;
  let text: string;
  try {
    const res = await fetch(`${platform.url}${probe.path}`, {
      method: probe.method,
      headers,
      ...(probe.body !== undefined ? { body: probe.body } : {}),
      signal,
    });
    status = res.status;
    // an event stream that opened is cut: the fuzz only cares how it started
    text = res.headers.get('content-type')?.includes('event-stream') ? (await res.body?.cancel(), '') : await res.text();
  } catch (err) {
    return { probe, status: `no answer (${err instanceof Error ? err.name : String(err)})`, body: '' };
  }
  if (status === 401 && !probe.isPublic) unauthenticated.push(`${probe.operation} (${probe.what})`);
  if (status === 500) return { probe, status, body: text.slice(0, 300) };
  if (status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const body = parsed as { status?: unknown; code?: unknown; message?: unknown } | undefined;
    if (!body || body.status !== 'error' || typeof body.code !== 'string' || typeof body.message !== 'string')
      return { probe, status, body: `not the platform's error body: ${text.slice(0, 300)}` };
    if (body.code === 'INTERNAL') return { probe, status, body: text.slice(0, 300) };
  }
  return undefined;
}

async function runAll(all: Probe[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < all.length) {
        const probe = all[next++] as Probe;
        const finding = await send(probe);
        if (finding) findings.push(finding);
      }
    }),
  );
  return findings;
}

it('answers every hostile request to every operation of /openapi.json without a 500, a hang or a crash', async () => {
  const doc = (await (await fetch(`${platform.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, OpenApiOperation>> };
  const all: Probe[] = [];
  for (const [route, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) all.push(...probes(route, method, op));
  }
  const operations = new Set(all.map((p) => p.operation)).size;
  expect(operations).toBeGreaterThan(150);
  const started = Date.now();
  const findings = await runAll(all);
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `\nfuzz: ${all.length} hostile requests to ${operations} operations in ${seconds.toFixed(1)} s, ${findings.length} findings\n`,
  );
  expect(
    findings.map((f) => `${f.probe.method} ${f.probe.path.slice(0, 120)} (${f.probe.operation}, ${f.probe.what}): ${f.status} ${f.body}`),
  ).toEqual([]);
  // nothing reached the prototype of every object, and the process still answers
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((await fetch(`${platform.url}/health/live`)).status).toBe(200);
  // every probe behind credentials got past authentication, so the operation itself was fuzzed
  expect(unauthenticated).toEqual([]);
  const again = await platform.http('GET', '/whoami', { headers: { authorization: basic } });
  expect(again.status).toBe(200);
}, 900_000);
