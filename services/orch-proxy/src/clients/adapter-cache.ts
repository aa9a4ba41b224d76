import { AppError } from '@nap/contracts';
import type { AdapterRecord } from '@nap/contracts';
import { orchestratorAdapter } from '../domain/adapter';
import type { OrchestratorAdapter } from '../domain/adapter';

/** How long a record is trusted without an `adapterChanged` event, ms: a bound on staleness if an event is missed (a bus reconnect). */
export const ADAPTER_CACHE_TTL_MS = 60_000;

/** Reads an adapter's record (admin.getAdapter); ADAPTER_NOT_FOUND when there is none. */
export type LoadAdapter = (name: string) => Promise<AdapterRecord>;

/**
 * Adapter records by name, without credentials, read from admin on first use and dropped on admin's
 * `adapterChanged` event (and after {@link ADAPTER_CACHE_TTL_MS}). Concurrent first uses share one read.
 */
export class AdapterCache {
  private readonly entries = new Map<string, { adapter: Promise<OrchestratorAdapter>; expiresAt: number }>();

  constructor(private readonly ttlMs = ADAPTER_CACHE_TTL_MS) {}

  /** The adapter, RUNNING: 404 ADAPTER_NOT_FOUND, 422 ORCH_ADAPTER_NOT_NSO, 409 ADAPTER_NOT_RUNNING otherwise. */
  async running(name: string, load: LoadAdapter): Promise<OrchestratorAdapter> {
    const adapter = await this.get(name, load);
    if (adapter.state !== 'RUNNING') {
      throw new AppError(
        'ADAPTER_NOT_RUNNING',
        `Adapter "${name}" is ${adapter.state}, not RUNNING; start it (PUT /adapters/${name}/start), or restart it once the orchestrator answers`,
      );
    }
    return adapter;
  }

  async get(name: string, load: LoadAdapter): Promise<OrchestratorAdapter> {
    const now = Date.now();
    const hit = this.entries.get(name);
    if (hit !== undefined && hit.expiresAt > now) return hit.adapter;
    const adapter = load(name).then(orchestratorAdapter);
    const entry = { adapter, expiresAt: now + this.ttlMs };
    this.entries.set(name, entry);
    // a failed read is not kept: the next request asks again
    adapter.catch(() => {
      if (this.entries.get(name) === entry) this.entries.delete(name);
    });
    return adapter;
  }

  /** Forgets one adapter (it changed, or a call found it gone or stopped). */
  drop(name: string): void {
    this.entries.delete(name);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
