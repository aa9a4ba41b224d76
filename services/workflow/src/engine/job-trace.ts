import { ROOT_CONTEXT, SpanKind, extractTraceContext, injectTraceHeaders, withSpan } from '@nap/telemetry';
import type { Context } from '@nap/telemetry';
import type { JobRecord, JobTraceContext } from '../domain/job-model';

/**
 * The W3C trace context of `ctx` as a job stores it (`traceparent`, `tracestate`): undefined when
 * `ctx` holds no valid span, as a request that came without a `traceparent` to a process that
 * records no spans (the usual case: the job then stores nothing).
 */
export function storedTraceOf(ctx: Context): JobTraceContext | undefined {
  const carrier: Record<string, string> = {};
  injectTraceHeaders(carrier, ctx);
  const { traceparent, tracestate } = carrier;
  if (traceparent === undefined) return undefined;
  return tracestate === undefined || tracestate === '' ? { traceparent } : { traceparent, tracestate };
}

/**
 * A trace of its own for a job that no request started and no parent handed one (a schedule, an
 * event or a trigger): a root span `workflow.job`, ended at once, whose context the job stores, so
 * that its task calls (on any engine that drives it) are one trace. Undefined where no span is
 * recorded: the job stores nothing.
 */
export function ownTraceOf(job: Pick<JobRecord, '_id' | 'name' | 'trigger'>): Promise<JobTraceContext | undefined> {
  const attributes = {
    'nap.job_id': job._id,
    'nap.workflow': job.name,
    ...(job.trigger?.type !== undefined ? { 'nap.trigger_type': String(job.trigger.type) } : {}),
  };
  return withSpan('workflow.job', SpanKind.INTERNAL, attributes, (_span, ctx) => Promise.resolve(storedTraceOf(ctx)), ROOT_CONTEXT);
}

/**
 * The context a job's calls are made in, from what the job stores: the parent of their CLIENT spans.
 * Undefined for a job that stores none (the bus client then uses the active context).
 */
export function traceOfJob(stored: JobTraceContext | undefined): Context | undefined {
  if (stored === undefined) return undefined;
  const { traceparent, tracestate } = stored;
  return extractTraceContext(tracestate === undefined ? { traceparent } : { traceparent, tracestate });
}
