import type { Handler } from '@nap/bus';
import { brokerMapOf } from '../domain/adapters';
import type { AdminContext } from '../context';

/** `GET /adapters/brokers/mapping`: mapping between brokers and adapters. */
export function getBrokerMap(svc: AdminContext): Handler<'admin.getBrokerMap'> {
  return async () => brokerMapOf(await svc.adapters.live());
}
