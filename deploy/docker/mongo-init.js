// Run by compose's mongo-init service (mongosh, as the root user) at every start: makes the
// one-member replica set rs0 on the first start, waits for it to elect its primary, then makes (or
// updates) one user per NAP service with readWrite on its own database and nothing else. The
// passwords come from the secret file mongo-service-passwords, one `service=password` a line.
const fs = require('fs');

const SERVICES = ['admin', 'workflow', 'mop', 'gateway-devices', 'orch-proxy', 'studio'];

try {
  rs.status();
} catch (e) {
  // NotYetInitialized: the first start
  if (e.code !== 94) throw e;
  rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] });
}
for (let waited = 0; !db.hello().isWritablePrimary; waited += 250) {
  if (waited > 60000) throw new Error('replica set rs0 elected no primary within 60 s');
  sleep(250);
}

const passwords = Object.fromEntries(
  fs
    .readFileSync('/run/secrets/mongo_service_passwords', 'utf8')
    .split('\n')
    .filter((line) => line.includes('='))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).trim()]),
);
const admin = db.getSiblingDB('admin');
for (const service of SERVICES) {
  const pwd = passwords[service];
  if (!pwd) throw new Error(`mongo-service-passwords has no password for ${service}`);
  const user = `nap-${service}`;
  const roles = [{ role: 'readWrite', db: `nap_${service.replaceAll('-', '_')}` }];
  if (admin.getUser(user)) admin.updateUser(user, { pwd, roles });
  else admin.createUser({ user, pwd, roles });
}
print(`rs0 ready; users ${SERVICES.map((s) => `nap-${s}`).join(', ')}`);
