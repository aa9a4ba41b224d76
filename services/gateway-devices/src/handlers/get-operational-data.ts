import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { OperationalQuery } from '../domain/device-types';
import type { GatewayDevicesContext } from '../context';

const OPERATIONAL_QUERIES: readonly OperationalQuery[] = ['interfaces', 'routes', 'arp', 'neighbors', 'clock', 'version'];

/** Operational data of a device (interfaces, routes, arp, neighbors, clock, version, or a show command). */
export function getOperationalData(svc: GatewayDevicesContext): Handler<'gateway-devices.getOperationalData'> {
  return async (input, ctx) => {
    const { name, filter } = input.body;
    const wanted = filter === undefined ? OPERATIONAL_QUERIES : typeof filter === 'string' ? [filter] : filter;
    const data = await svc.access.withInventoryCli(
      name,
      async (session) => {
        const out: Record<string, string> = {};
        for (const query of wanted) {
          const known = OPERATIONAL_QUERIES.find((q) => q === query);
          // A name outside the table is taken as a read-only command of the device ("show ip ospf neighbor").
          if (known === undefined && !/^(?:show|display) \S/.test(query)) {
            throw new AppError(
              'VALIDATION_FAILED',
              `Operational data "${query}" is neither ${OPERATIONAL_QUERIES.join(', ')} nor a show command`,
            );
          }
          out[query] = (await session.sendCommand(known === undefined ? query : session.profile.commands.operational[known])).output;
        }
        return out;
      },
      { deadline: ctx.deadline },
    );
    return { name, data };
  };
}
