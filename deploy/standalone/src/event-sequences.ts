import type { EventSequences } from '@nap/bus';
import type { Store } from '@nap/store';

/** The collection that holds the reservation, in the store given to {@link createStoreEventSequences}. */
export const EVENT_SEQUENCES_COLLECTION = 'bus_meta';
const RESERVATION_ID = 'event-sequences';

interface ReservationDoc {
  _id: string;
  [member: string]: unknown;
  /** The last sequence any life of the stream may have handed out. */
  reservedUpTo: number;
}

/**
 * The in-process event stream's sequence reservations in a store (embedded: committed and flushed
 * before a write resolves, so a reservation survives `kill -9`): a new life of the stream starts
 * past whatever an earlier one reserved, so event ids keep rising across restarts and a client
 * resuming with an old id never skips the events of the new process. One document, raised (never
 * lowered) by each reservation.
 */
export async function createStoreEventSequences(store: Store): Promise<EventSequences> {
  const docs = store.collection<ReservationDoc>(EVENT_SEQUENCES_COLLECTION);
  const kept = await docs.findOne({ _id: RESERVATION_ID });
  const previous = typeof kept?.reservedUpTo === 'number' && Number.isSafeInteger(kept.reservedUpTo) ? kept.reservedUpTo : 0;
  return {
    first: previous + 1,
    async reserve(upTo: number): Promise<void> {
      await docs.updateOne({ _id: RESERVATION_ID }, { $max: { reservedUpTo: upTo } }, { upsert: true });
    },
  };
}
