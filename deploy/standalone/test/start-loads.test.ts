import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * What a platform loads to start. The libraries that only some work needs are loaded on their first
 * use (`onFirstUse` of @nap/util): a standalone platform on the embedded store, with no SSO, device,
 * integration or tracing configured, starts without them. Loaded at start they were about half of
 * its start-up (3.3 s to listen on this machine's 2 cores; 2.7 s without them, medians of 5). Runs the built
 * platform in a process of its own, as `npm start` does.
 */

const ROOT = path.resolve(__dirname, '../../..');
const DIST = path.join(ROOT, 'deploy/standalone/dist/index.js');
const RUNTIME = path.join(ROOT, 'packages/runtime/dist/index.js');

/** Each library, with what loads it once it is needed. */
const LOADED_ON_FIRST_USE = {
  mongodb: 'a store on MongoDB (NAP_MONGO_URL)',
  '@node-saml/node-saml': 'a SAML sign-in',
  xml2js: 'a SAML sign-in',
  ldapts: 'an LDAP sign-in',
  '@apidevtools/swagger-parser': 'an OpenAPI document imported as an integration model',
  swagger2openapi: 'a Swagger 2.0 document imported',
  undici: 'an adapter or integration calling out',
  ssh2: 'a connection to a device',
  '@opentelemetry/sdk-trace-node': 'spans recorded (OTEL_EXPORTER_OTLP_ENDPOINT)',
  '@opentelemetry/exporter-trace-otlp-http': 'spans recorded',
  mingo: 'a filter, sort, projection or update of the embedded store beyond its simple shapes',
  'mingo/updater': 'an update of the embedded store beyond its simple shapes',
  '@nats-io/nats-core': 'a bus over NATS (NAP_NATS_URL)',
  '@nats-io/jetstream': 'a bus over NATS',
  semver: 'a pre-built checked',
} as const;

// Starts the platform, lists every library entry point in the module cache, stops.
const CHILD = `
const { startPlatform } = require(${JSON.stringify(DIST)});
const { loadConfig } = require(${JSON.stringify(RUNTIME)});
const names = ${JSON.stringify(Object.keys(LOADED_ON_FIRST_USE))};
(async () => {
  const config = { ...loadConfig({ NAP_DATA_DIR: process.env.DATA_DIR, NAP_PORT: '0', NAP_ADMIN_PASSWORD: 'start-loads-password' }), logLevel: 'warn' };
  const platform = await startPlatform({ config });
  const atStart = names.filter((name) => require.cache[require.resolve(name)] !== undefined);
  const login = await fetch(platform.url + '/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin', password: 'start-loads-password' } }) });
  const res = await fetch(platform.url + '/whoami', { headers: { authorization: 'Bearer ' + (await login.text()) } });
  const afterSignIn = names.filter((name) => require.cache[require.resolve(name)] !== undefined);
  await platform.stop();
  process.stdout.write(JSON.stringify({ status: res.status, atStart, afterSignIn }));
})().catch((err) => { console.error(err); process.exit(1); });
`;

let dataDir: string;
beforeAll(() => {
  if (!existsSync(DIST)) throw new Error('deploy/standalone/dist is missing: run `npm run build` at the repository root first');
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-start-loads-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('starts, signs the administrator in and answers, without the libraries only some work needs', () => {
  const child = spawnSync(process.execPath, ['-e', CHILD], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, OTEL_EXPORTER_OTLP_ENDPOINT: '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect({ exit: child.status, stderr: child.status === 0 ? '' : child.stderr }).toEqual({ exit: 0, stderr: '' });
  const { status, atStart, afterSignIn } = JSON.parse(child.stdout) as { status: number; atStart: string[]; afterSignIn: string[] };
  expect(status).toBe(200);
  // each name says what should load it, so that a failure says which import moved back to the top
  const why = (names: string[]) =>
    Object.fromEntries(names.map((name) => [name, LOADED_ON_FIRST_USE[name as keyof typeof LOADED_ON_FIRST_USE]]));
  expect(why(atStart)).toEqual({});
  expect(why(afterSignIn)).toEqual({});
}, 90_000);

/**
 * The audit thread (services/admin/src/engine/audit-thread-main.ts) starts with every platform: it
 * loads the modules of @nap/contracts it needs, not its index, which loads every schema and TypeBox
 * (~0.2 s of CPU at each start, in a thread beside the platform's own start).
 */
it('the audit thread loads neither the contracts index nor TypeBox', () => {
  const main = path.join(ROOT, 'services/admin/dist/engine/audit-thread-main.js');
  const child = spawnSync(
    process.execPath,
    ['-e', `require(${JSON.stringify(main)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`],
    { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
  );
  expect({ exit: child.status, stderr: child.status === 0 ? '' : child.stderr }).toEqual({ exit: 0, stderr: '' });
  const loaded = (JSON.parse(child.stdout) as string[]).map((file) => path.relative(ROOT, file));
  // the thread's own modules were loaded (the check would pass on nothing otherwise)
  expect(loaded).toEqual(expect.arrayContaining(['services/admin/dist/store/audit-records.js', 'packages/store/dist/index.js']));
  expect(loaded.filter((file) => file === 'contracts/dist/index.js' || file.includes('@sinclair/typebox'))).toEqual([]);
});
