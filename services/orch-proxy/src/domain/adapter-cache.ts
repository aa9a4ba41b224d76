import { AppError } from '@nap/contracts';
import type { AdapterRecord, AdapterState } from '@nap/contracts';

/** What orch-proxy keeps of an orchestrator adapter: no credential ever (admin holds them and adds them to each call). */
export interface OrchestratorAdapter {
  name: string;
  state: AdapterState;
  /** Bound of one call to the orchestrator, from the adapter's settings (`timeoutMs`), when it sets one. */
  timeoutMs?: number;
}

/** How long a record is trusted without an `adapterChanged` event, ms: a bound on staleness if an event is missed (a bus reconnect). */
export const ADAPTER_CACHE_TTL_MS = 60_000;

/** Reads an adapter's record (admin.getAdapter); ADAPTER_NOT_FOUND when there is none. */
export type LoadAdapter = (name: string) => Promise<AdapterRecord>;

/** The record reduced to what orch-proxy needs; 422 ORCH_ADAPTER_NOT_NSO for an adapter of another type. */
export function orchestratorAdapter(record: AdapterRecord): OrchestratorAdapter {
  const name = record.data.name;
  const type = record.data.properties.type;
  if (type !== 'NSO')
    throw new AppError('ORCH_ADAPTER_NOT_NSO', `Adapter "${name}" is of type ${type}; the orchestrator routes drive adapters of type NSO`);
  const settings = record.data.properties.properties;
  const out: OrchestratorAdapter = { name, state: record.metadata.state };
  if (typeof settings.timeoutMs === 'number') out.timeoutMs = settings.timeoutMs;
  return out;
}

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
