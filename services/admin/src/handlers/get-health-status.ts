import type { Handler } from '@nap/bus';
import { healthStatus } from '../domain/health';
import { applicationsHealth } from '../steps/applications';
import type { AdminContext } from '../context';

/** `GET /health/status`: one look at what the platform needs: the bus, this service's store and every application. */
export function getHealthStatus(svc: AdminContext): Handler<'admin.getHealthStatus'> {
  return async () => {
    const storeUp = await svc.pingStore().then(
      () => true,
      () => false,
    );
    const storeDisk = await svc.storeDisk();
    const busConnected = svc.bus.isConnected();
    const applications = busConnected ? await applicationsHealth(svc) : [];
    return healthStatus({
      busKind: svc.bus.kind,
      busConnected,
      storeKind: svc.storeKind,
      storeUp,
      ...(storeDisk !== undefined ? { storeDisk } : {}),
      applications,
      now: Date.now(),
    });
  };
}
