import { errorMessage } from '@nap/util';

/** Which health route a probe asks. */
export type ProbeKind = 'live' | 'ready';

/**
 * Where this process's health answers, from the same variables the process reads: the management
 * listener (`NAP_HEALTH_PORT`) when set, else the gateway's own port (`NAP_PORT`, default 3000);
 * on `NAP_HOST`, or loopback when that is a wildcard address.
 */
export function healthUrl(env: NodeJS.ProcessEnv, kind: ProbeKind): string {
  const port = env.NAP_HEALTH_PORT || env.NAP_PORT || '3000';
  const configured = env.NAP_HOST || '127.0.0.1';
  const host = configured === '0.0.0.0' || configured === '::' ? '127.0.0.1' : configured;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/health/${kind}`;
}

/**
 * Asks this process's health route once, bounded by `timeoutMs`: what a container `HEALTHCHECK`,
 * a compose health check or a Kubernetes exec probe runs. Never rejects.
 */
export async function probeHealth(
  env: NodeJS.ProcessEnv,
  kind: ProbeKind = 'ready',
  timeoutMs = 4_000,
): Promise<{ ok: boolean; message: string }> {
  const url = healthUrl(env, kind);
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return { ok: res.ok, message: `${url} answered ${res.status} ${(await res.text()).slice(0, 500)}` };
  } catch (err) {
    return { ok: false, message: `${url} did not answer: ${errorMessage(err)}` };
  }
}
