import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { CHART_DIR, PLATFORM_NODE_FLAGS, chartYaml, helm, stageChart } from './helm';

/**
 * The Helm chart, checked offline (no cluster here): values.yaml and every example values file
 * against values.schema.json with ajv, then rendered by a real helm (lint, template, the schema
 * as helm applies it at install) and the rendered objects checked for what an operator expects.
 */

type Values = Record<string, unknown>;
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}
interface Container {
  name: string;
  args?: string[];
  command?: string[];
  env?: { name: string; value?: string }[];
  ports?: { name: string; containerPort: number }[];
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } };
  livenessProbe?: { httpGet?: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
  startupProbe?: { httpGet?: { path: string; port: string } };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  securityContext?: Record<string, unknown>;
  topologySpreadConstraints?: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } }[];
  volumes?: {
    name: string;
    emptyDir?: unknown;
    projected?: { sources: { secret: { name: string; items: { key: string; path: string }[] } }[] };
  }[];
  automountServiceAccountToken?: boolean;
}

interface RuleGroup {
  name: string;
  rules: { alert?: string; record?: string; expr: string; annotations?: Record<string, string> }[];
}

const COMPONENTS = ['gateway', 'admin', 'workflow', 'mop', 'gateway-devices', 'orch-proxy', 'studio'];
const schema = JSON.parse(readFileSync(path.join(CHART_DIR, 'values.schema.json'), 'utf8')) as object;
const defaults = parse(readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8')) as Values;
const examples = readdirSync(path.join(CHART_DIR, 'examples')).filter((f) => f.endsWith('.yaml'));
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

const isObject = (v: unknown): v is Values => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Helm's merge of a values file over the defaults: maps merge, everything else replaces. */
function merge(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const current = out[k];
    out[k] = isObject(current) && isObject(v) ? merge(current, v) : v;
  }
  return out;
}
function errorsOf(values: Values): string {
  return validate(values) ? '' : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`).join('\n');
}

describe('values.schema.json (ajv)', () => {
  it('accepts values.yaml', () => {
    expect(errorsOf(defaults)).toBe('');
  });

  it.each(examples)('accepts examples/%s over the defaults', (file) => {
    const example = parse(readFileSync(path.join(CHART_DIR, 'examples', file), 'utf8')) as Values;
    expect(errorsOf(merge(defaults, example))).toBe('');
  });

  const bad: [string, Values, RegExp][] = [
    [
      'credentials in the external MongoDB URL',
      { mongodb: { enabled: false }, externalMongodb: { url: 'mongodb://nap:secret@mongo:27017' } },
      /\/externalMongodb\/url must match pattern/,
    ],
    [
      'credentials in the external NATS URL',
      { nats: { enabled: false }, externalNats: { url: 'nats://nap:secret@nats:4222' } },
      /\/externalNats\/url must match pattern/,
    ],
    ['no NATS at all', { nats: { enabled: false } }, /\/externalNats\/(url|existingSecret) must NOT have fewer than 1 characters/],
    ['no MongoDB at all', { mongodb: { enabled: false } }, /\/externalMongodb\/(url|existingSecret) must NOT have fewer than 1 characters/],
    [
      'JetStream off',
      { nats: { config: { jetstream: { enabled: false } } } },
      /\/nats\/config\/jetstream\/enabled must be equal to constant/,
    ],
    [
      'a NATS cluster of two',
      { nats: { config: { cluster: { enabled: true, replicas: 2 } } } },
      /\/nats\/config\/cluster\/replicas must be >= 3/,
    ],
    [
      'a MongoDB replica set of two members (no majority survives one lost)',
      { mongodb: { members: 2 } },
      /\/mongodb\/members must be equal to one of the allowed values/,
    ],
    ['an arbiter', { mongodb: { arbiters: 1 } }, /\/mongodb must NOT have additional properties/],
    [
      'no Secret of NAP (the chart generates none)',
      { secrets: { existingSecret: '' } },
      /\/secrets\/existingSecret must NOT have fewer than 1 characters/,
    ],
    [
      'a key of the NAP Secret that is no Secret key',
      { secrets: { keys: { adminPassword: 'admin/password' } } },
      /\/secrets\/keys\/adminPassword must match pattern/,
    ],
    [
      "the bundled MongoDB without its users' passwords",
      { mongodb: { existingSecret: '' } },
      /\/mongodb\/existingSecret must NOT have fewer than 1 characters/,
    ],
    [
      'a service key for no service',
      { externalMongodb: { serviceKeys: { gateway: 'mongo-url' } } },
      /\/externalMongodb\/serviceKeys must NOT have additional properties/,
    ],
    ['pods as root', { podSecurityContext: { runAsNonRoot: false } }, /\/podSecurityContext\/runAsNonRoot must be equal to constant/],
    [
      'privilege escalation',
      { containerSecurityContext: { allowPrivilegeEscalation: true } },
      /\/containerSecurityContext\/allowPrivilegeEscalation must be equal to constant/,
    ],
    [
      'capabilities kept',
      { containerSecurityContext: { capabilities: { drop: ['NET_RAW'] } } },
      /\/containerSecurityContext\/capabilities\/drop must contain at least 1 valid item/,
    ],
    [
      'a secret setting in clear',
      { config: { extraEnv: [{ name: 'NAP_ADMIN_PASSWORD', value: 'in-clear' }] } },
      /\/config\/extraEnv\/0\/name must NOT be valid/,
    ],
    ['the health port on the gateway port', { config: { healthPort: 3000 } }, /\/config\/healthPort must NOT be valid/],
    ['no gateway replica', { gateway: { replicaCount: 0 } }, /\/gateway\/replicaCount must be >= 1/],
    [
      'a runbook base that is no URL ending in /',
      { metrics: { prometheusRule: { runbookBaseUrl: 'wiki/nap' } } },
      /\/metrics\/prometheusRule\/runbookBaseUrl must match pattern/,
    ],
    ['a misspelt key', { gatway: { replicaCount: 2 } }, /must NOT have additional properties/],
    ['an unknown pull policy', { image: { pullPolicy: 'Sometimes' } }, /\/image\/pullPolicy must be equal to one of the allowed values/],
    [
      'a memory limit that is no quantity',
      { services: { mop: { resources: { limits: { memory: 'a lot' } } } } },
      /\/services\/mop\/resources\/limits\/memory/,
    ],
  ];
  it.each(bad)('refuses %s, naming the field', (_what, patch, expected) => {
    expect(errorsOf(merge(defaults, patch))).toMatch(expected);
  });
});

describe('README.md', () => {
  it('has the values table that @bitnami/readme-generator-for-helm makes from values.yaml (npm run docs:helm)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-readme-'));
    try {
      copyFileSync(path.join(CHART_DIR, 'README.md'), path.join(dir, 'README.md'));
      const cli = path.join(path.dirname(require.resolve('@bitnami/readme-generator-for-helm/package.json')), 'bin/index.js');
      const r = spawnSync(
        process.execPath,
        [cli, '--values', path.join(CHART_DIR, 'values.yaml'), '--readme', path.join(dir, 'README.md')],
        { encoding: 'utf8' },
      );
      expect(r.stderr).not.toContain('ERROR');
      expect(r.status).toBe(0);
      expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe(readFileSync(path.join(CHART_DIR, 'README.md'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the chart as helm renders it', () => {
  let chart: string;
  beforeAll(() => {
    chart = stageChart();
  });
  afterAll(() => rmSync(path.dirname(chart), { recursive: true, force: true }));

  function render(args: string[] = []): K8sObject[] {
    const r = helm(['template', 'rel', chart, '--namespace', 'netops', ...args]);
    if (r.status !== 0) throw new Error(`helm template ${args.join(' ')} failed:\n${r.stderr}`);
    return parseAllDocuments(r.stdout)
      .map((d) => d.toJS() as K8sObject | null)
      .filter((d): d is K8sObject => d !== null);
  }
  const podSpecOf = (o: K8sObject) => (o.spec as { template: { spec: PodSpec } }).template.spec;
  const named = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);

  it("takes NATS from the NATS project's chart and MongoDB from MongoDB's operator, nothing from Bitnami", () => {
    const deps = chartYaml().dependencies ?? [];
    expect(deps).toEqual([
      { name: 'nats', version: '1.3.x', repository: 'https://nats-io.github.io/k8s/helm/charts/', condition: 'nats.enabled' },
    ]);
    for (const file of ['Chart.yaml', 'values.yaml'])
      expect(readFileSync(path.join(CHART_DIR, file), 'utf8')).not.toMatch(/bitnami(?!\/readme-generator)/i);
    const [mongodb] = named(render(), 'MongoDBCommunity');
    expect(mongodb?.apiVersion).toBe('mongodbcommunity.mongodb.com/v1');
  });

  it('renders the same objects every time: no generated secret, so helm template and GitOps never change one', () => {
    for (const args of [
      [],
      ['-f', path.join(CHART_DIR, 'examples/production.yaml')],
      ['-f', path.join(CHART_DIR, 'examples/external.yaml')],
    ]) {
      const first = helm(['template', 'rel', chart, '--namespace', 'netops', ...args]);
      const second = helm(['template', 'rel', chart, '--namespace', 'netops', ...args]);
      expect(first.status).toBe(0);
      expect(second.stdout).toBe(first.stdout);
      expect(first.stdout).not.toMatch(/^kind: Secret$/m);
    }
    for (const file of readdirSync(path.join(CHART_DIR, 'templates')).filter((f) => f.endsWith('.yaml') || f.endsWith('.tpl')))
      expect([file, /randAlphaNum|lookup /.test(readFileSync(path.join(CHART_DIR, 'templates', file), 'utf8'))]).toEqual([file, false]);
    const r = helm(['template', 'rel', chart, '--set', 'secrets.existingSecret=']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('/secrets/existingSecret');
  });

  it.each(['values.yaml', ...examples.map((f) => `examples/${f}`)])('passes helm lint with %s', (file) => {
    const args = file === 'values.yaml' ? [] : ['-f', path.join(CHART_DIR, file)];
    const r = helm(['lint', chart, '--strict', ...args]);
    expect(r.stderr + r.stdout).toContain('0 chart(s) failed');
  });

  it('refuses a bad value at install, naming it', () => {
    const r = helm(['template', 'rel', chart, '--set', 'mongodb.enabled=false', '--set', 'externalMongodb.url=mongodb://u:p@mongo']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('/externalMongodb/url');
  });

  it('runs every component non-root on a read-only root file system, with probes, resources and spread', () => {
    const deployments = named(render(), 'Deployment');
    expect(deployments.map((d) => d.metadata.labels?.['app.kubernetes.io/component']).sort()).toEqual([...COMPONENTS].sort());
    for (const d of deployments) {
      const pod = podSpecOf(d);
      const [c] = pod.containers;
      if (!c) throw new Error(`${d.metadata.name} has no container`);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
      expect(c.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(pod.automountServiceAccountToken).toBe(false);
      // writable places a read-only root needs
      expect(c.volumeMounts?.map((m) => m.mountPath).sort()).toEqual(['/data', '/home/node', '/run/secrets/nap', '/tmp']);
      expect(c.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'management' });
      expect(c.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'management' });
      expect(c.startupProbe?.httpGet).toEqual({ path: '/health/live', port: 'management' });
      expect(c.ports?.find((p) => p.name === 'management')?.containerPort).toBe(8081);
      expect(c.env?.find((e) => e.name === 'NAP_HEALTH_PORT')?.value).toBe('8081');
      // whole numbers in decimal digits: helm prints a value of 1,000,000 or more as 1.048576e+06 unless the chart says int64
      const numbers = (c.env ?? []).filter((e) => /_(BYTES|SECONDS|PORT)$/.test(e.name));
      expect(numbers.filter((e) => !/^\d+$/.test(e.value ?? ''))).toEqual([]);
      if (d.metadata.labels?.['app.kubernetes.io/component'] === 'gateway')
        expect(numbers.map((e) => `${e.name}=${e.value ?? ''}`)).toEqual(
          expect.arrayContaining(['NAP_BODY_LIMIT_BYTES=1048576', 'NAP_DOCUMENT_BODY_LIMIT_BYTES=8388608', 'NAP_TOKEN_TTL_SECONDS=43200']),
        );
      expect(c.resources?.requests).toHaveProperty('memory');
      expect(c.resources?.limits).toHaveProperty('memory');
      // args keep the image's tini entrypoint
      expect(c.command).toBeUndefined();
      expect(c.args?.[0]).toBe('node');
      // the engine's young generation as the standalone platform's (`npm start`); the others keep Node's
      const component = d.metadata.labels?.['app.kubernetes.io/component'];
      const main = component === 'gateway' ? 'gateway/dist/main.js' : `services/${component}/dist/main.js`;
      expect(c.args).toEqual(['node', ...(component === 'workflow' ? PLATFORM_NODE_FLAGS : []), main]);
      expect(pod.topologySpreadConstraints?.map((t) => t.topologyKey)).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
      expect(pod.topologySpreadConstraints?.[0]?.labelSelector.matchLabels['app.kubernetes.io/component']).toBe(
        d.metadata.labels?.['app.kubernetes.io/component'],
      );
    }
  });

  it("mounts secrets as files each process reads, never in clear: NAP's from existingSecret, each service its own MongoDB user", () => {
    const objects = render();
    for (const d of named(objects, 'Deployment')) {
      const pod = podSpecOf(d);
      const env = Object.fromEntries((pod.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
      for (const name of ['NAP_SECRET_KEY', 'NAP_ADMIN_PASSWORD', 'NAP_MONGO_URL']) expect(env).not.toHaveProperty(name);
      expect(env.NAP_SECRET_KEY_FILE).toBe('/run/secrets/nap/secret-key');
      const component = d.metadata.labels?.['app.kubernetes.io/component'] ?? '';
      const sources = pod.volumes?.find((v) => v.name === 'secrets')?.projected?.sources ?? [];
      const items = sources.flatMap((source) => source.secret.items.map((i) => `${source.secret.name}:${i.key}>${i.path}`));
      const expected = ['nap-secrets:secret-key>secret-key'];
      if (component === 'admin') expected.push('nap-secrets:admin-password>admin-password');
      // the connection string the operator writes for the service's own user; the gateway has none
      if (component !== 'gateway') expected.push(`rel-nap-mongodb-admin-nap-${component}:connectionString.standard>mongo-url`);
      expect([component, items]).toEqual([component, expected]);
      expect(env.NAP_MONGO_URL_FILE).toBe(component === 'gateway' ? undefined : '/run/secrets/nap/mongo-url');
      for (const e of pod.containers[0]?.env ?? []) expect(e.value ?? '').not.toMatch(/:\/\/[^/]*@/);
    }
    expect(named(objects, 'Secret')).toEqual([]);

    // other key names in existingSecret
    const renamed = render([
      '--set',
      'secrets.existingSecret=ops-nap',
      '--set',
      'secrets.keys.secretKey=key',
      '--set',
      'secrets.keys.adminPassword=pw',
    ]);
    const adminPod = named(renamed, 'Deployment').find((d) => d.metadata.name === 'rel-nap-admin');
    const napSource = adminPod ? podSpecOf(adminPod).volumes?.find((v) => v.name === 'secrets')?.projected?.sources[0]?.secret : undefined;
    expect(napSource).toEqual({
      name: 'ops-nap',
      items: [
        { key: 'key', path: 'secret-key' },
        { key: 'pw', path: 'admin-password' },
      ],
    });
    expect(JSON.stringify(renamed.find((o) => o.kind === 'Pod')?.spec)).toContain('"secretName":"ops-nap"');

    // an external MongoDB: each service its own URL (its own user) from the Secret
    const external = render(['-f', path.join(CHART_DIR, 'examples/external.yaml')]);
    expect(named(external, 'Secret')).toEqual([]);
    expect(named(external, 'MongoDBCommunity')).toEqual([]);
    for (const name of ['admin', 'workflow', 'gateway-devices']) {
      const d = named(external, 'Deployment').find((o) => o.metadata.name === `rel-nap-${name}`);
      const sources = d ? podSpecOf(d).volumes?.find((v) => v.name === 'secrets')?.projected?.sources : undefined;
      expect(sources?.find((source) => source.secret.name === 'nap-store')?.secret.items).toEqual([
        { key: `mongo-url-${name}`, path: 'mongo-url' },
      ]);
      expect(sources?.map((source) => source.secret.name)).toEqual(['nap-secrets', 'nap-store', 'nap-bus']);
      const env = Object.fromEntries((d ? (podSpecOf(d).containers[0]?.env ?? []) : []).map((e) => [e.name, e.value]));
      expect(env).toMatchObject({ NAP_MONGO_URL_FILE: '/run/secrets/nap/mongo-url', NAP_NATS_URL_FILE: '/run/secrets/nap/nats-url' });
    }
  });

  it('makes a replica set with the MongoDB operator: one member by default; in production three that hold the data, no arbiter; a least-privilege user per service', () => {
    const admin = named(render(), 'Deployment').find((d) => d.metadata.name === 'rel-nap-admin');
    expect(admin && podSpecOf(admin).containers[0]?.env).toContainEqual({ name: 'NAP_NATS_URL', value: 'nats://rel-nats.netops.svc:4222' });
    const [trial] = named(render(), 'MongoDBCommunity');
    expect(trial?.spec).toMatchObject({ type: 'ReplicaSet', members: 1, arbiters: 0 });
    const [production] = named(render(['-f', path.join(CHART_DIR, 'examples/production.yaml')]), 'MongoDBCommunity');
    const spec = production?.spec as {
      members: number;
      arbiters: number;
      security: unknown;
      users: { name: string; db: string; passwordSecretRef: { name: string; key: string }; roles: { name: string; db: string }[] }[];
      statefulSet: { spec: { template: { spec: { topologySpreadConstraints?: { topologyKey: string }[] } } } };
    };
    expect(production?.metadata.name).toBe('rel-nap-mongodb');
    expect({ members: spec.members, arbiters: spec.arbiters }).toEqual({ members: 3, arbiters: 0 });
    expect(spec.security).toEqual({ authentication: { modes: ['SCRAM'] } });
    expect(spec.users.map((u) => [u.name, u.db, u.passwordSecretRef, u.roles])).toEqual(
      COMPONENTS.filter((c) => c !== 'gateway').map((c) => [
        `nap-${c}`,
        'admin',
        { name: 'nap-mongodb-passwords', key: c },
        [{ name: 'readWrite', db: `nap_${c.replace('-', '_')}` }],
      ]),
    );
    expect(spec.statefulSet.spec.template.spec.topologySpreadConstraints?.map((t) => t.topologyKey)).toEqual([
      'topology.kubernetes.io/zone',
      'kubernetes.io/hostname',
    ]);
    expect(readFileSync(path.join(CHART_DIR, 'examples/production.yaml'), 'utf8')).toMatch(/no arbiter/);
  });

  it('autoscales the gateway and the workflow engine, and budgets disruptions of what runs more than once', () => {
    const objects = render();
    const hpas = named(objects, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name).sort()).toEqual([
      'rel-nap-gateway',
      'rel-nap-workflow',
    ]);
    for (const d of named(objects, 'Deployment')) {
      const scaled = ['gateway', 'workflow'].includes(d.metadata.labels?.['app.kubernetes.io/component'] ?? '');
      expect(d.spec?.replicas === undefined).toBe(scaled);
    }
    const pdbs = named(objects, 'PodDisruptionBudget').map((p) => p.metadata.name);
    // orch-proxy runs one replica by default: a budget would block every drain
    expect(pdbs.sort()).toEqual(
      COMPONENTS.filter((c) => c !== 'orch-proxy')
        .map((c) => `rel-nap-${c}`)
        .sort(),
    );
    const minimal = render(['-f', path.join(CHART_DIR, 'examples/minimal.yaml')]);
    expect(named(minimal, 'PodDisruptionBudget')).toEqual([]);
    expect(named(minimal, 'HorizontalPodAutoscaler')).toEqual([]);
  });

  it('lets only the gateway take traffic from outside, and only NAP reach NATS', () => {
    const policies = named(render(), 'NetworkPolicy');
    const byName = Object.fromEntries(
      policies.map((p) => [
        p.metadata.name,
        p.spec as {
          podSelector: { matchLabels: Record<string, string> };
          ingress: { from?: unknown[]; ports: { port: string | number }[] }[];
        },
      ]),
    );
    const all = byName['rel-nap-default'];
    expect(all?.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'nap', 'app.kubernetes.io/instance': 'rel' });
    expect(all?.ingress.flatMap((r) => r.ports.map((p) => p.port))).toEqual(['management']);
    expect(all?.ingress.every((r) => Array.isArray(r.from) && r.from.length > 0)).toBe(true);
    const gateway = byName['rel-nap-gateway'];
    expect(gateway?.podSelector.matchLabels['app.kubernetes.io/component']).toBe('gateway');
    expect(gateway?.ingress).toEqual([{ ports: [{ port: 'http', protocol: 'TCP' }] }]);
    const nats = byName['rel-nap-nats'];
    expect(nats?.ingress[0]?.ports).toEqual([{ port: 4222, protocol: 'TCP' }]);
    expect(JSON.stringify(nats?.ingress[0]?.from)).toContain('"app.kubernetes.io/name":"nap"');
  });

  it('scrapes every process with a ServiceMonitor when asked, and sends traces where told', () => {
    expect(named(render(), 'ServiceMonitor')).toEqual([]);
    const production = render(['-f', path.join(CHART_DIR, 'examples/production.yaml')]);
    const [monitor] = named(production, 'ServiceMonitor');
    expect(monitor?.spec).toMatchObject({
      selector: { matchLabels: { 'app.kubernetes.io/component': 'management' } },
      endpoints: [{ port: 'management', path: '/metrics' }],
    });
    const management = named(production, 'Service').find((s) => s.metadata.labels?.['app.kubernetes.io/component'] === 'management');
    expect(management?.spec).toMatchObject({ clusterIP: 'None', ports: [{ name: 'management', port: 8081 }] });
    for (const d of named(production, 'Deployment')) {
      expect(podSpecOf(d).containers[0]?.env).toContainEqual({
        name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
        value: 'http://otel-collector.observability.svc:4318',
      });
    }
  });

  it("ships NAP's alert rules as a PrometheusRule when asked: the groups of files/prometheus/nap-alerts.yaml", () => {
    expect(named(render(), 'PrometheusRule')).toEqual([]);
    const file = parse(readFileSync(path.join(CHART_DIR, 'files/prometheus/nap-alerts.yaml'), 'utf8')) as { groups: RuleGroup[] };
    expect(file.groups.length).toBeGreaterThan(0);
    const on = ['--set', 'metrics.prometheusRule.enabled=true', '--set', 'metrics.prometheusRule.labels.release=kube-prometheus-stack'];
    const [rule] = named(render(on), 'PrometheusRule');
    expect(rule?.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule?.metadata.name).toBe('rel-nap');
    expect(rule?.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack', 'app.kubernetes.io/instance': 'rel' });
    expect(rule?.spec).toEqual({ groups: file.groups });
    // a base for the runbook links prefixes each runbook_url, and changes nothing else
    const base = 'https://git.example.com/netops/nap/-/blob/main/';
    const [linked] = named(render([...on, '--set', `metrics.prometheusRule.runbookBaseUrl=${base}`]), 'PrometheusRule');
    const prefixed = file.groups.map((g) => ({
      ...g,
      rules: g.rules.map((r) =>
        r.annotations?.runbook_url === undefined
          ? r
          : { ...r, annotations: { ...r.annotations, runbook_url: `${base}${r.annotations.runbook_url}` } },
      ),
    }));
    expect(
      prefixed.flatMap((g) => g.rules).filter((r) => r.annotations?.runbook_url?.startsWith(`${base}docs/monitoring.md#`)).length,
    ).toBeGreaterThan(0);
    expect(linked?.spec).toEqual({ groups: prefixed });
  });

  it("ships NAP's Grafana dashboard as a ConfigMap for Grafana's sidecar when asked: files/grafana/nap-dashboard.json as it is", () => {
    const dashboards = (objects: ReturnType<typeof render>) =>
      named(objects, 'ConfigMap').filter((c) => c.metadata.name.endsWith('-grafana-dashboard'));
    expect(dashboards(render())).toEqual([]);
    const [map] = dashboards(
      render([
        '--set',
        'metrics.grafanaDashboard.enabled=true',
        '--set',
        'metrics.grafanaDashboard.namespace=monitoring',
        '--set',
        'metrics.grafanaDashboard.annotations.grafana_folder=Network automation',
      ]),
    );
    expect(map?.metadata.name).toBe('rel-nap-grafana-dashboard');
    expect(map?.metadata.namespace).toBe('monitoring');
    // kube-prometheus-stack's sidecar loads ConfigMaps labelled grafana_dashboard
    expect(map?.metadata.labels).toMatchObject({ grafana_dashboard: '1', 'app.kubernetes.io/instance': 'rel' });
    expect(map?.metadata.annotations).toEqual({ grafana_folder: 'Network automation' });
    const json = map?.data?.['nap-dashboard.json'] ?? '';
    expect(JSON.parse(json)).toEqual(JSON.parse(readFileSync(path.join(CHART_DIR, 'files/grafana/nap-dashboard.json'), 'utf8')));
  });

  it('has a helm test hook that logs in and checks /health/server, and NOTES that say how to reach it', () => {
    const objects = render();
    const pod = objects.find((o) => o.kind === 'Pod');
    expect(pod?.metadata.annotations?.['helm.sh/hook']).toBe('test');
    const spec = pod?.spec as unknown as PodSpec;
    expect(spec.containers[0]?.args).toEqual(['node', '/test/helm-test.js']);
    expect(spec.containers[0]?.env).toContainEqual({ name: 'NAP_URL', value: 'http://rel-nap-gateway.netops.svc:80' });
    const script = objects.find((o) => o.kind === 'ConfigMap')?.data?.['helm-test.js'];
    expect(script).toBe(readFileSync(path.join(CHART_DIR, 'files/helm-test.js'), 'utf8'));
    expect(script).toContain('/health/server');
    const install = helm(['install', 'rel', chart, '--namespace', 'netops', '--dry-run=client']);
    expect(install.status).toBe(0);
    expect(install.stdout).toContain('helm test rel -n netops');
    expect(install.stdout).toContain("get secret nap-secrets -o jsonpath='{.data.admin-password}'");
  });
});
