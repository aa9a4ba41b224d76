import { AppError } from '@nap/contracts';
import type { AdapterRecord, AdapterState } from '@nap/contracts';

/** What orch-proxy keeps of an orchestrator adapter: no credential ever (admin holds them and adds them to each call). */
export interface OrchestratorAdapter {
  name: string;
  state: AdapterState;
  /** Bound of one call to the orchestrator, from the adapter's settings (`timeoutMs`), when it sets one. */
  timeoutMs?: number;
}

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
