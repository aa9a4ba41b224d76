// `helm test`: logs in through the gateway Service and checks the platform's health. Run by the
// chart's test pod (node, in NAP's own image) and by `npm run test:image` against the containers.
// NAP_URL: the gateway; NAP_ADMIN_USERNAME; the password in NAP_ADMIN_PASSWORD_FILE.
'use strict';
const { readFileSync } = require('node:fs');

const base = process.env.NAP_URL;
const username = process.env.NAP_ADMIN_USERNAME || 'admin';
const password = readFileSync(process.env.NAP_ADMIN_PASSWORD_FILE, 'utf8').replace(/\r?\n$/, '');

async function call(route, init) {
  const res = await fetch(`${base}${route}`, { ...init, signal: AbortSignal.timeout(10000) });
  const text = await res.text();
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body };
}

async function main() {
  const ready = await call('/health/ready');
  if (ready.status !== 200) throw new Error(`GET /health/ready answered ${ready.status}: ${JSON.stringify(ready.body)}`);
  const login = await call('/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username, password } }) });
  if (login.status !== 200 || typeof login.body !== 'string') throw new Error(`POST /login as ${username} answered ${login.status}`);
  const server = await call('/health/server', { headers: { authorization: `Bearer ${login.body}` } });
  if (server.status !== 200 || typeof server.body.release !== 'string') throw new Error(`GET /health/server answered ${server.status}: ${JSON.stringify(server.body)}`);
  console.log(`ok: ${base} is ready with ${ready.body.services.join(', ')}; ${username} logged in; release ${server.body.release}, up ${Math.round(server.body.uptime)} s`);
}

main().catch((err) => {
  console.error(`helm test failed: ${err.message}`);
  process.exit(1);
});
