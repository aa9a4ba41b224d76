import { eventually } from '@nap/testing';
import type { TestPlatform } from '@nap/standalone';
import type { NsoPeer } from '@nap/lab';

/** Test helpers: NSO adapters pointing at the lab's NSO peer, created and started through HTTP. */

export interface NsoAdapterOptions {
  password?: string;
  /** Bound of one orchestrator call, ms. */
  timeoutMs?: number;
  start?: boolean;
}

/** The adapter document of an NSO adapter for `peer`. */
export function nsoAdapterDoc(
  name: string,
  peer: Pick<NsoPeer, 'port' | 'user' | 'password'>,
  options: NsoAdapterOptions = {},
): Record<string, unknown> {
  return {
    name,
    type: 'Adapter',
    model: '@itentialopensource/adapter-nso',
    properties: {
      id: name,
      type: 'NSO',
      brokers: [],
      groups: [],
      properties: {
        http: { host: '127.0.0.1', port: peer.port },
        ssl: { enabled: false, acceptInvalidCerts: false },
        credentials: { user: peer.user, passwd: options.password ?? peer.password },
        // one check at start (RUNNING); the next ones are far enough apart not to meet a test's injected faults
        healthcheck: { intervalSeconds: 300, failuresBeforeDead: 3 },
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      },
    },
  };
}

/** Creates the adapter (and starts it, waiting until it is RUNNING, unless `start: false`). */
export async function addNsoAdapter(
  platform: TestPlatform,
  token: string,
  name: string,
  peer: Pick<NsoPeer, 'port' | 'user' | 'password'>,
  options: NsoAdapterOptions = {},
): Promise<void> {
  const created = await platform.http('POST', '/adapters', { token, body: { properties: nsoAdapterDoc(name, peer, options) } });
  if (created.status !== 200) throw new Error(`Creating adapter ${name} failed: ${created.status} ${JSON.stringify(created.body)}`);
  if (options.start === false) return;
  await startAdapter(platform, token, name);
}

/** Starts an adapter and waits (bounded) until it is RUNNING. */
export async function startAdapter(platform: TestPlatform, token: string, name: string): Promise<void> {
  const started = await platform.http('PUT', `/adapters/${name}/start`, { token });
  if (started.status !== 200) throw new Error(`Starting adapter ${name} failed: ${started.status} ${JSON.stringify(started.body)}`);
  await eventually(
    `adapter ${name} to become RUNNING`,
    async () => {
      const health = await platform.http('GET', `/health/adapters/${name}`, { token });
      if ((health.body as { state?: string }).state === 'RUNNING') return true;
      throw new Error(`its health is ${JSON.stringify(health.body)}`);
    },
    { timeoutMs: 10_000 },
  );
}
