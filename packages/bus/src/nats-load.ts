import { onFirstUse } from '@nap/util';
import type * as NatsBusModule from './nats-bus';
import type { NatsBus, NatsBusOptions } from './nats-bus';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (onFirstUse)
const natsBus = onFirstUse(() => require('./nats-bus') as typeof NatsBusModule);

/**
 * A bus over NATS (JetStream for events); its module, and the NATS client with it (~70 modules),
 * load on the first call: a standalone platform on the in-process bus never loads them.
 */
export function createNatsBus(options: NatsBusOptions): Promise<NatsBus> {
  return natsBus().createNatsBus(options);
}
