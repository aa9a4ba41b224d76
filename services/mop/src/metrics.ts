import { TEMPLATE_RUN_KINDS } from '@nap/contracts';
import type { TemplateRun } from '@nap/contracts';
import { counterOnce } from '@nap/telemetry';
import type { Registry } from '@nap/telemetry';

/**
 * The mop service's part of `/exporter_metrics`: template runs by kind (command, analytic) and
 * result (pass, fail), counted by the replica that ran them. Answers the callback the run history
 * reports each kept run to.
 */
export function registerMopMetrics(registry: Registry): (kind: TemplateRun['kind'], passed: boolean) => void {
  const runs = counterOnce(registry, {
    name: 'nap_mop_runs_total',
    help: 'MOP template runs by kind and result (pass: every rule held)',
    labelNames: ['kind', 'result'],
  });
  // every series present from the start, so a rate over the first runs is right
  for (const kind of TEMPLATE_RUN_KINDS) for (const result of ['pass', 'fail']) runs.inc({ kind, result }, 0);
  return (kind, passed) => runs.inc({ kind, result: passed ? 'pass' : 'fail' });
}
