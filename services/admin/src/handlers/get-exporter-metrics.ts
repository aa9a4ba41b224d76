import { rawReply } from '@nap/bus';
import type { Handler } from '@nap/bus';
import { gatherPlatformMetrics } from '@nap/runtime';
import type { AdminContext } from '../context';

/** `GET /exporter_metrics`: the metrics of every process of the platform, gathered over the bus and aggregated. */
export function getExporterMetrics(svc: AdminContext): Handler<'admin.getExporterMetrics'> {
  return async () => {
    const { text, contentType } = await gatherPlatformMetrics(svc.bus);
    return rawReply(text, contentType);
  };
}
