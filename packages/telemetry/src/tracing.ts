import { context, propagation, trace, SpanStatusCode } from '@opentelemetry/api';
import type { Context, Span, SpanKind, TextMapGetter, TextMapSetter, Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type * as SdkTraceNode from '@opentelemetry/sdk-trace-node';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type * as Resources from '@opentelemetry/resources';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import { errorMessage, onFirstUse } from '@nap/util';

export { SpanKind, SpanStatusCode } from '@opentelemetry/api';
export type { Span, Context } from '@opentelemetry/api';
/** The empty context: no trace (code that passes the context itself, outside any request). */
export { ROOT_CONTEXT } from '@opentelemetry/api';

const TRACER_NAME = '@nap/telemetry';

// The SDK, its resources and the OTLP exporter load only in a process that records spans
// (onFirstUse): about 350 modules that every process otherwise loaded at start for nothing.
/* eslint-disable @typescript-eslint/no-require-imports -- see above */
const sdk = onFirstUse(() => require('@opentelemetry/sdk-trace-node') as typeof SdkTraceNode);
const resources = onFirstUse(() => require('@opentelemetry/resources') as typeof Resources);
const otlpHttp = onFirstUse(() => require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp);
/* eslint-enable @typescript-eslint/no-require-imports */

export interface TracingOptions {
  serviceName: string;
  /** Exporter to use; defaults to OTLP over HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, else none. */
  exporter?: SpanExporter;
  /** Export each span at once (tests) instead of batching. */
  simple?: boolean;
  /**
   * Carry the active context through async code (an AsyncLocalStorage context manager). `false` by
   * default: the platform's code passes the context itself (`withSpan` hands its callback the span's
   * context, the bus client takes it as `trace`, a handler finds its request's as `ctx.trace`). On
   * Node 20 an AsyncLocalStorage runs hooks on every promise the process makes, which cost the
   * distributed gateway about a tenth of its CPU per request and the workflow engine about 5%.
   * `true` for code that relies on `context.active()`.
   */
  asyncContext?: boolean;
}

export interface Tracing {
  /** False when no exporter is configured: spans are not recorded, only context is propagated (an incoming traceparent goes on unchanged). */
  readonly enabled: boolean;
  shutdown(): Promise<void>;
}

let installed: NodeTracerProvider | undefined;

/**
 * Installs the tracer provider and the W3C propagator for this process. Called once by `main.ts`.
 * Without an exporter and without `OTEL_EXPORTER_OTLP_ENDPOINT`, tracing stays a no-op.
 */
export function initTracing(options: TracingOptions): Tracing {
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const exporter = options.exporter ?? (process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? new (otlpHttp().OTLPTraceExporter)() : undefined);
  const asyncContext = options.asyncContext ?? false;
  if (!exporter) {
    // the process's code passes the context itself: nothing to install
    if (!asyncContext) return { enabled: false, shutdown: async () => {} };
    // no spans are recorded, but the incoming trace context must still follow each request through
    // async code, so that it reaches the bus and outside systems (an orchestrator's traceparent)
    const manager = new AsyncLocalStorageContextManager().enable();
    const owned = context.setGlobalContextManager(manager);
    return {
      enabled: false,
      shutdown: async () => {
        if (owned) context.disable();
        else manager.disable();
      },
    };
  }
  if (installed) throw new Error('Tracing is already initialised in this process');
  const { NodeTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } = sdk();
  const provider = new NodeTracerProvider({
    resource: resources().resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [options.simple ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)],
  });
  provider.register({ propagator: new W3CTraceContextPropagator(), ...(asyncContext ? {} : { contextManager: null }) });
  installed = provider;
  return {
    enabled: true,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      installed = undefined;
    },
  };
}

const headerSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

const headerGetter: TextMapGetter<Record<string, string>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** Writes `traceparent`/`tracestate` of `ctx` (default: the active context) into headers. */
export function injectTraceHeaders(headers: Record<string, string>, ctx: Context = context.active()): void {
  propagation.inject(ctx, headers, headerSetter);
}

/** Reads the trace context carried in headers (on top of the active context, the root one without a context manager). */
export function extractTraceContext(headers: Record<string, string>): Context {
  return propagation.extract(context.active(), headers, headerGetter);
}

/**
 * Runs `fn` inside a new span, child of `parent` (default: active context). `fn` gets the span and
 * its context, which code that passes the context itself hands on (see `asyncContext` of
 * {@link initTracing}); the context is also made active for as long as a context manager carries it.
 * The span ends when `fn` settles; a thrown error with status >= 500 (or without a status) marks the
 * span failed.
 */
export function withSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  fn: (span: Span, ctx: Context) => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  const span = trace.getTracer(TRACER_NAME).startSpan(name, { kind, attributes }, parent);
  const ctx = trace.setSpan(parent, span);
  // a span that records nothing (no exporter: the usual case) has nothing to end or mark: the
  // callback's promise is answered as it is, without a wrapper awaiting it (each request of the
  // platform crosses a few of these, and every promise costs more where an AsyncLocalStorage runs)
  if (span.isRecording()) return spanOf(span, ctx, fn);
  try {
    return context.with(ctx, () => fn(span, ctx));
  } catch (err) {
    // as an async function would: a callback that throws at once rejects
    return Promise.reject(err);
  }
}

async function spanOf<T>(span: Span, ctx: Context, fn: (span: Span, ctx: Context) => Promise<T>): Promise<T> {
  try {
    return await context.with(ctx, () => fn(span, ctx));
  } catch (err) {
    markSpanError(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** 4xx leaves a span unset; 5xx (or an unknown throw) marks it failed. */
export function markSpanError(span: Span, err: unknown): void {
  const status = typeof err === 'object' && err !== null && 'status' in err ? Number((err as { status: unknown }).status) : 500;
  if (status >= 500) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
    if (err instanceof Error) span.recordException(err);
  }
}
