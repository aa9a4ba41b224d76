import { decodeJson } from '@nap/bus';
import type { Bus, Subscription } from '@nap/bus';
import { EVENT_SCHEMAS, eventPattern, isValid } from '@nap/contracts';
import type { AdapterCache } from '../clients/adapter-cache';

/**
 * Follows admin's adapter events for as long as the service runs: `adapterChanged` drops the record
 * it names, anything it cannot read drops them all (the next request reads them again).
 */
export async function followAdapterChanges(bus: Bus, adapters: AdapterCache): Promise<Subscription> {
  return bus.consumeEvents(
    eventPattern('admin', 'adapter'),
    (event) => {
      let payload: unknown;
      try {
        payload = decodeJson(event.data);
      } catch {
        payload = undefined;
      }
      if (isValid(EVENT_SCHEMAS.admin.adapter.adapterChanged, payload)) adapters.drop(payload.name);
      else adapters.clear();
    },
    { deliver: 'new' },
  );
}
