import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import type { NextFunction, Request, Response, Express } from 'express';
import { CATALOG, DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_PARAM_LENGTH } from '@nap/contracts';
import { createAuditRecorder } from '@nap/bus';
import type { AuditRecorder, Bus, BusClient } from '@nap/bus';
import type { Logger, PlatformMetrics } from '@nap/telemetry';
import { createAuditTrail } from './audit';
import { createAuditExport } from './audit-export';
import { Authenticator } from './auth/authenticator';
import { createBodyReader } from './body';
import { createBrowserSafety } from './browser-safety';
import { createClientAddress } from './client-address';
import type { BrowserSafetyOptions } from './browser-safety';
import { consoleBuilt, defaultConsoleDir, mountConsole } from './console-files';
import { mountDocs } from './docs';
import { answerThrown, answerUnrouted, createErrorAnswers } from './errors';
import type { RequestLocals } from './exchange';
import { mountHealth } from './health';
import { countUnrouted } from './observe';
import { createOperationPath } from './operation';
import { requestIdOf } from './request-id';
import { RouteTable } from './routes';
import { createSecurityHeaders } from './security-headers';
import { createSessionCookies } from './session-cookie';
import { createEventStreams } from './sse';
import type { EventStreamOptions } from './sse';
import { UnavailableServices } from './unavailable';

export interface GatewayOptions extends BrowserSafetyOptions {
  bus: Bus;
  client: BusClient;
  logger: Logger;
  metrics: PlatformMetrics;
  /** How long a Basic caller's credentials are remembered before the admin service checks them again (default 10 s). */
  basicCredentialsTtlMs?: number;
  /** Largest accepted body, in bytes or a size string (`1mb`). */
  bodyLimit?: string | number;
  /** Largest accepted body of the operations that take whole documents (catalog `bodyLimit: 'document'`), in bytes. */
  documentBodyLimit?: number;
  /** Deepest nesting of a JSON body (400 `JSON_TOO_DEEP` beyond); checked on the bytes before parsing. */
  maxJsonDepth?: number;
  /** Longest path parameter, in characters (400 `PARAMETER_TOO_LONG` beyond). */
  maxParamLength?: number;
  /** Services that must answer discovery for `/health/ready`. */
  requiredServices?: readonly string[];
  authenticator?: Authenticator;
  /** Token lifetime of login cookies, seconds (admin service decides the token itself). */
  cookieMaxAgeSeconds?: number;
  /** Mark the `token` cookie Secure (behind TLS) whatever the request; it is anyway when the request came over https. */
  secureCookies?: boolean;
  /** The built console served at `/console/` (`NAP_CONSOLE_DIR`); `console/dist` beside the gateway when unset. */
  consoleDir?: string;
  /**
   * Where the audit trail goes: the bus's audit queue by default. `false` records nothing
   * (`NAP_AUDIT=off`, for measuring what the audit costs, never for production: a warning is logged).
   */
  audit?: AuditRecorder | false;
  /** Settings of the event streams: heartbeat interval, how slow clients are dropped. */
  eventStreams?: Pick<
    EventStreamOptions,
    'heartbeatMs' | 'sink' | 'resume' | 'callerRecheckMs' | 'callerCheckSpreadMs' | 'maxStreamsPerCaller'
  >;
}

export interface Gateway {
  /** The express app: health, OpenAPI, docs, 404/405, and every catalog route when mounted alone. */
  app: Express;
  /**
   * The request listener to serve: catalog operations are answered on Node's request and response
   * directly (no express layers per request), everything else goes to `app`.
   */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  authenticator: Authenticator;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The HTTP gateway: every catalog route, authenticated, role-checked and validated here, then sent
 * as one bus request to the owning service. No business logic lives here. Catalog operations take
 * the operation path (operation.ts, one step a file); express answers the rest.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { bus, client, logger, metrics } = options;
  const authenticator =
    options.authenticator ??
    new Authenticator({
      bus,
      client,
      logger,
      ...(options.basicCredentialsTtlMs !== undefined ? { basicTtlMs: options.basicCredentialsTtlMs } : {}),
    });
  const routes = new RouteTable(CATALOG, { maxParamLength: options.maxParamLength ?? DEFAULT_MAX_PARAM_LENGTH });
  const errors = createErrorAnswers(logger, options.bodyLimit);
  const browser = createBrowserSafety(options);
  if (options.audit === false) logger.warn('The audit trail is off (NAP_AUDIT=off): changes, logins and refusals are not recorded');
  const audit = createAuditTrail({ recorder: options.audit ?? createAuditRecorder(bus), logger, trustProxy: options.trustProxy });
  const clientAddress = createClientAddress(options);
  const streams = createEventStreams({
    bus,
    client,
    authenticator,
    clientAddress,
    logger,
    registry: metrics.registry,
    ...options.eventStreams,
    others: { 'admin.exportAudit': createAuditExport(client, authenticator, clientAddress) },
  });
  const consoleDir = options.consoleDir ?? defaultConsoleDir();
  const serveOperation = createOperationPath({
    bus,
    client,
    logger,
    metrics,
    authenticator,
    routes,
    streams,
    readBody: createBodyReader({
      bodyLimit: options.bodyLimit,
      ...(options.documentBodyLimit !== undefined ? { documentBodyLimit: options.documentBodyLimit } : {}),
      maxJsonDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
    }),
    sessionCookies: createSessionCookies({
      maxAgeSeconds: options.cookieMaxAgeSeconds,
      secure: options.secureCookies,
      browser,
      consoleServed: () => consoleBuilt(consoleDir),
    }),
    securityHeaders: createSecurityHeaders(browser),
    browser,
    clientAddress,
    unavailable: new UnavailableServices(bus),
    errors,
    audit,
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('etag', false);
  app.use((req: Request, res: Response, next: NextFunction) => {
    (res.locals as RequestLocals).requestId = requestIdOf(req, res);
    next();
  });
  // mounted alone (tests, embedding), the express app answers catalog routes the same way
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!serveOperation(req, res)) next();
  });
  mountHealth(app, bus, options.requiredServices ?? []);
  mountDocs(app);
  mountConsole(app, { dir: consoleDir, logger });
  app.use(answerUnrouted(routes, errors, (method, status) => countUnrouted(metrics, method, status)));
  app.use(answerThrown(errors));

  return {
    app,
    // catalog operations, nearly all the traffic, are answered without express
    handler: (req, res) => {
      if (!serveOperation(req, res)) app(req, res);
    },
    authenticator,
    start: () => authenticator.start(),
    stop: async () => {
      await streams.stop();
      await authenticator.stop();
    },
  };
}
