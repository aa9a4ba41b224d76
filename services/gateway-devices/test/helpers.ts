import { isAppError } from '@nap/contracts';
import type { CliSimulator } from '@nap/lab';
import type { SshSessionOptions } from '../src/clients/ssh-session';
import { createMemoryKnownHostsStore } from '../src/store/known-hosts-repository';
import type { KnownHostsStore } from '../src/store/known-hosts-repository';

/** Session options for a simulator, with a fresh trust-on-first-use store unless one is given. */
export function simulatorTarget(
  sim: CliSimulator,
  extra: Partial<SshSessionOptions> = {},
  knownHosts: KnownHostsStore = createMemoryKnownHostsStore(),
): SshSessionOptions {
  return {
    deviceName: `sim-${sim.deviceType}`,
    host: sim.host,
    port: sim.port,
    username: sim.username,
    password: sim.password,
    deviceType: sim.deviceType,
    knownHosts,
    readyTimeoutMs: 5_000,
    promptTimeoutMs: 5_000,
    ...extra,
  };
}

/** Awaits `promise`, expecting it to reject with an AppError; returns it for further checks. */
export async function expectAppError(
  promise: Promise<unknown>,
  code: string,
): Promise<{ code: string; message: string; details?: unknown }> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  if (caught === undefined) throw new Error(`Expected an AppError ${code}, but the call succeeded`);
  if (!isAppError(caught)) throw new Error(`Expected an AppError ${code}, got ${String(caught)}`, { cause: caught });
  expect({ code: caught.code, message: caught.message }).toEqual({ code, message: expect.any(String) as string });
  return caught;
}
