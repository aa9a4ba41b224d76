import type { ServiceName } from './services';

/**
 * The platform's applications: the names under which the original platform knows its own services,
 * as workflow tasks (`app`) and operators (`/applications`) use them, each served by one of NAP's
 * six services. Several names share a service: stopping one stops the service behind it, and with
 * it every name it serves.
 */
export const APPLICATIONS = {
  AdminEssentials: {
    service: 'admin',
    description: "Accounts, groups, authentication, adapters, integrations, applications, profiles, prebuilts and the platform's health",
  },
  AGManager: { service: 'gateway-devices', description: "Automation gateway management: the device gateway's runners" },
  AutomationCatalog: { service: 'workflow', description: 'The automation catalog' },
  AutomationGateway: { service: 'gateway-devices', description: 'Device gateway tasks (sendRequest and the gateway methods)' },
  AutomationStudio: { service: 'studio', description: 'Workflow documents, studio templates and component groups' },
  ConfigurationManager: { service: 'gateway-devices', description: 'Devices, device groups, configuration backups and device templates' },
  FormBuilder: { service: 'studio', description: 'Forms' },
  GatewayDevices: { service: 'gateway-devices', description: 'The device gateway: inventory, SSH, NETCONF and HTTP sessions' },
  JsonForms: { service: 'studio', description: 'JSON forms and their helpers' },
  Jst: { service: 'studio', description: 'JST transformations' },
  MOP: { service: 'mop', description: 'Methods of procedure: command and analytic templates and their runs' },
  OperationsManager: { service: 'workflow', description: 'Jobs and automations' },
  OrchManager: { service: 'orch-proxy', description: 'The orchestrator proxy' },
  TemplateBuilder: { service: 'studio', description: 'Jinja2 and TextFSM templates' },
  WorkFlowEngine: { service: 'workflow', description: 'The workflow engine and its built-in tasks' },
} as const satisfies Record<string, { service: ServiceName; description: string }>;

/** The name of an application of the platform. */
export type ApplicationName = keyof typeof APPLICATIONS;

/** Every application name, in alphabetical order. */
export const APPLICATION_NAMES = Object.freeze(Object.keys(APPLICATIONS).sort() as ApplicationName[]);

/** True when `value` names an application of the platform. */
export function isApplicationName(value: unknown): value is ApplicationName {
  return typeof value === 'string' && Object.hasOwn(APPLICATIONS, value);
}

/** The service that serves an application. */
export function serviceOfApplication(name: ApplicationName): ServiceName {
  return APPLICATIONS[name].service;
}

/** The applications a service serves, in alphabetical order. */
export function applicationsOfService(service: ServiceName): ApplicationName[] {
  return APPLICATION_NAMES.filter((name) => APPLICATIONS[name].service === service);
}

/**
 * The application whose service answers login and these administration routes: it refuses to be
 * stopped or restarted, so that an operator can never lock themselves out.
 */
export const PROTECTED_APPLICATION: ApplicationName = 'AdminEssentials';

/**
 * Log levels an application or adapter accepts (`PUT …/loglevel`), as the original platform names
 * them; `spam` is the most verbose (NAP logs it as `trace`).
 */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'trace', 'spam'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** True when `value` is one of {@link LOG_LEVELS}. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** Log outputs a level change names (`properties.transport`); NAP writes one log (JSON lines on stdout), which all of them set. */
export const LOG_TRANSPORTS = ['console', 'file', 'syslog'] as const;
