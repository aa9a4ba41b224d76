// The standalone platform in the benchmark's own process (built dist/ code), with a logged-in JSON
// caller: `const { call, api, token, stop } = await startBenchPlatform('mop')`.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const PASSWORD = 'bench-admin-password';

/**
 * Starts the services (every one unless `services` names some) and the gateway on a free port with a
 * fresh data directory; `env` adds `NAP_*` settings. `call(method, route, body?, token?)` answers
 * the parsed JSON body and throws on a status of 300 or more; `api(method, route, body?)` is `call`
 * as the logged-in admin.
 */
export async function startBenchPlatform(name, { env = {}, services } = {}) {
  const { startPlatform } = require('../../deploy/standalone/dist/index.js');
  const { loadConfig } = require('../../packages/runtime/dist/index.js');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `nap-bench-${name}-`));
  const config = { ...loadConfig({ NAP_DATA_DIR: dataDir, NAP_PORT: '0', NAP_ADMIN_PASSWORD: PASSWORD, NAP_SECRET_KEY: 'bench-secret-key-of-32-characters', ...env }), logLevel: 'warn' };
  const platform = await startPlatform({ config, ...(services ? { services } : {}) });
  const call = async (method, route, body, token) => {
    const res = await fetch(`${platform.url}${route}`, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 500)}`);
    // JSON answers parsed; text ones (the bare token of /login) as they are
    return text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text || undefined;
  };
  let token;
  try {
    token = await call('POST', '/login', { user: { username: 'admin', password: PASSWORD } });
  } catch (err) {
    await platform.stop();
    throw err;
  }
  return {
    platform,
    call,
    token,
    api: (method, route, body) => call(method, route, body, token),
    async stop() {
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
