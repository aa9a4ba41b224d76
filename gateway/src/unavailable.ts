import { AppError, applicationsOfService } from '@nap/contracts';
import type { ServiceName } from '@nap/contracts';
import { PAUSED_METADATA_KEY } from '@nap/bus';
import type { Bus } from '@nap/bus';

/** How long discovery of a service that answered no request is trusted, ms. */
const REMEMBER_MS = 1_000;
/** How long that discovery gathers answers, ms. */
const DISCOVER_MS = 250;

/**
 * Tells an operator why a service answers no request: when its replicas are all alive but paused
 * (an operator stopped its application), the 503 says so and names the applications to start.
 * Discovery runs only on that error path, at most once a second per service.
 */
export class UnavailableServices {
  private readonly known = new Map<ServiceName, { until: number; stopped: Promise<boolean> }>();

  constructor(private readonly bus: Bus) {}

  /** The error to answer for a `SERVICE_UNAVAILABLE` of `service`. */
  async explain(service: ServiceName, err: AppError): Promise<AppError> {
    let entry = this.known.get(service);
    if (entry === undefined || entry.until < Date.now()) {
      const stopped = this.bus
        .discover(service, DISCOVER_MS)
        .then((infos) => infos.length > 0 && infos.every((i) => i.metadata[PAUSED_METADATA_KEY] === 'true'))
        .catch(() => false);
      entry = { until: Date.now() + REMEMBER_MS, stopped };
      this.known.set(service, entry);
    }
    if (!(await entry.stopped)) return err;
    const applications = applicationsOfService(service);
    return new AppError(
      'SERVICE_UNAVAILABLE',
      `The ${service} service is stopped by an operator (application${applications.length === 1 ? '' : 's'} ${applications.join(', ')}); PUT /applications/${applications[0] ?? service}/start resumes it`,
      { details: { service, applications, state: 'STOPPED' } },
    );
  }
}
