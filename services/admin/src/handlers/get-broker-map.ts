import { brokerMapOf } from '../domain/adapters';
import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /adapters/brokers/mapping`: Mapping between brokers and adapters. */
export function getBrokerMap(svc: AdminContext): Handler<'admin.getBrokerMap'> {
  return async () => brokerMapOf(await svc.adapters.live());
}
