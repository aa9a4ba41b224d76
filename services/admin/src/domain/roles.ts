import { APPLICATIONS, CATALOG, ROLES, ROLE_NAMES, checkPrintableName, isApplicationName } from '@nap/contracts';
import type { ApplicationName, OperationDef, Role, ServiceName } from '@nap/contracts';
import { invalidMember } from './validation-error';

/**
 * Custom roles, Itential's way: a role allows methods `{ provenance, name }`, where provenance is
 * the application that has the method (WorkFlowEngine, OperationsManager, AutomationStudio,
 * AdminEssentials, …) and name the method's name. Each NAP operation that needs a role is one such
 * method: its name is the catalog entry's (NAP names its operations as the original platform names
 * its methods where it has them: getJobs, startJob, getWorkflows, …) and its application the one
 * its route belongs to (`/operations-manager/…` is OperationsManager, `/workflow_engine/…`
 * WorkFlowEngine, …; else the application its service is first known as). A group given the role
 * lets its members call exactly those operations (`operations` of their caller, which the gateway
 * checks beside the built-in roles).
 */

/** A method a role allows. */
export interface RoleMethod {
  name: string;
  provenance: string;
}

/** A console view a role allows: kept as given (the console shows what the caller's operations allow). */
export interface AllowedView {
  provenance: string;
  path: string;
}

/** The provenance of every custom role. */
export const CUSTOM_PROVENANCE = 'Custom';
/** The provenance of the built-in roles. */
export const BUILT_IN_PROVENANCE = 'NAP';

/** A method as `GET /authorization/methods` lists it. */
export interface MethodView {
  provenance: ApplicationName;
  name: string;
  deprecated: boolean;
  route: { path: string; fullPath: string; verb: string };
}

/** The application of a route, by the start of its path. */
const PATH_APPLICATIONS: readonly (readonly [string, ApplicationName])[] = [
  ['/operations-manager/', 'OperationsManager'],
  ['/workflow_engine/', 'WorkFlowEngine'],
  ['/automation_catalog/', 'AutomationCatalog'],
  ['/automation-studio/', 'AutomationStudio'],
  ['/formbuilder/', 'FormBuilder'],
  ['/template_builder/', 'TemplateBuilder'],
  ['/transformations', 'Jst'],
  ['/jst/', 'Jst'],
  ['/json-forms/', 'JsonForms'],
  ['/mop/', 'MOP'],
  ['/configuration_manager/', 'ConfigurationManager'],
  ['/gw/', 'GatewayDevices'],
  ['/orch_manager/', 'OrchManager'],
];

/** The application a service's routes belong to when their path names none of {@link PATH_APPLICATIONS}. */
const SERVICE_APPLICATIONS: Record<ServiceName, ApplicationName> = {
  admin: 'AdminEssentials',
  workflow: 'WorkFlowEngine',
  studio: 'AutomationStudio',
  'gateway-devices': 'ConfigurationManager',
  mop: 'MOP',
  'orch-proxy': 'OrchManager',
};

/** The application that has an operation: the one its path names, when its service serves it; else its service's. */
export function applicationOf(op: OperationDef): ApplicationName {
  const path = op.http?.path ?? '';
  const named = PATH_APPLICATIONS.find(([prefix]) => path.startsWith(prefix))?.[1];
  return named !== undefined && APPLICATIONS[named].service === op.service ? named : SERVICE_APPLICATIONS[op.service];
}

/** True for an operation a role can allow: an HTTP route that needs a role (not a public one, not one any signed-in caller may call). */
function grantable(op: OperationDef): boolean {
  return op.http !== undefined && op.roles.length > 0 && op.auth !== 'caller';
}

const key = (provenance: string, name: string) => `${provenance}\u0000${name}`;

/** The methods of the catalog, by provenance then name; and the operation id of each. */
export class MethodIndex {
  readonly methods: readonly MethodView[];
  private readonly ids = new Map<string, string>();
  private readonly byId = new Map<string, RoleMethod>();

  constructor(catalog: readonly OperationDef[] = CATALOG) {
    const methods: MethodView[] = [];
    for (const op of catalog) {
      if (!grantable(op) || op.http === undefined) continue;
      const provenance = applicationOf(op);
      methods.push({
        provenance,
        name: op.name,
        deprecated: false,
        route: { path: op.http.path, fullPath: op.http.path, verb: op.http.method },
      });
      this.ids.set(key(provenance, op.name), op.id);
      this.byId.set(op.id, { provenance, name: op.name });
    }
    this.methods = methods.sort((a, b) => a.provenance.localeCompare(b.provenance) || a.name.localeCompare(b.name));
  }

  /** The operation id of a method; undefined when NAP has none of that provenance and name. */
  operationOf(method: RoleMethod): string | undefined {
    return this.ids.get(key(method.provenance, method.name));
  }

  /** The method of an operation id; undefined for one no role can allow. */
  methodOf(id: string): RoleMethod | undefined {
    return this.byId.get(id);
  }

  /** The methods the built-in role gives, as a role lists them. */
  methodsOf(role: Role): RoleMethod[] {
    return CATALOG.filter((op) => grantable(op) && op.roles.includes(role)).flatMap((op) => {
      const method = this.byId.get(op.id);
      return method === undefined ? [] : [method];
    });
  }
}

/** The one index of the catalog this process has. */
export const METHODS = new MethodIndex();

/** A role as the routes answer it. */
export interface RoleView {
  [key: string]: unknown;
  _id: string;
  name: string;
  description: string;
  provenance: string;
  builtIn: boolean;
  allowedMethods: RoleMethod[];
  allowedViews: AllowedView[];
  created?: string;
  createdBy?: string;
  lastUpdated?: string;
  lastUpdatedBy?: string;
}

/** The built-in roles as roles: `_id` their name, provenance NAP, the methods the catalog gives them. */
export function builtInRoles(index: MethodIndex = METHODS): RoleView[] {
  return ROLE_NAMES.map((role) => ({
    _id: role,
    name: role,
    description: ROLES[role],
    provenance: BUILT_IN_PROVENANCE,
    builtIn: true,
    allowedMethods: index.methodsOf(role),
    allowedViews: [],
  }));
}

/** True when `name` is a built-in role's, whatever its letter case. */
export function isBuiltInName(name: string): boolean {
  return ROLE_NAMES.some((role) => role.toLowerCase() === name.toLowerCase());
}

/**
 * Letters of other scripts that people read as the Latin letters of the built-in roles' names (in
 * lower case: a capital of them reads so once lowered, Cyrillic А, Greek Ι), and Latin ones that do
 * (dotless ı, script ɡ).
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  а: 'a',
  ɑ: 'a',
  α: 'a',
  ԁ: 'd',
  е: 'e',
  ε: 'e',
  ҽ: 'e',
  ɡ: 'g',
  ց: 'g',
  і: 'i',
  ı: 'i',
  ι: 'i',
  ӏ: 'i',
  ɩ: 'i',
  м: 'm',
  μ: 'm',
  ո: 'n',
  ν: 'n',
  о: 'o',
  ο: 'o',
  օ: 'o',
  р: 'p',
  ρ: 'p',
  г: 'r',
  ѕ: 's',
  т: 't',
  τ: 't',
  υ: 'u',
  ս: 'u',
  ԝ: 'w',
};

/** What a name reads as: compatibility forms folded (ｆｕｌｌ width), marks and invisible characters dropped, lower case, look-alikes read as the letters they look like. */
function readAs(name: string): string {
  const folded = name
    .normalize('NFKD')
    .replace(/[\p{M}\p{Default_Ignorable_Code_Point}]/gu, '')
    .toLowerCase();
  return [...folded].map((c) => LOOK_ALIKES[c] ?? c).join('');
}

/** The built-in role a name reads as (`Admin`, `аdmin` with a Cyrillic а, `admin` with a zero-width space), if any. */
export function builtInNamedLike(name: string): Role | undefined {
  const read = readAs(name);
  return ROLE_NAMES.find((role) => role === read);
}

/** Refuses a role name people could not tell apart (400 naming `member`): only whitespace, an unprintable character, whitespace at either end. */
export function checkRoleName(name: string, member: string): void {
  if (name.trim() === '') throw invalidMember(member, 'is only whitespace: give the role a name');
  checkPrintableName(name, member);
  if (name.trim() !== name) throw invalidMember(member, `"${name}" begins or ends with whitespace; give it as "${name.trim()}"`);
}

/** Refuses a provenance other than Custom (400 naming `member`): every role made here is a custom one. */
export function checkProvenance(provenance: string | undefined, member: string): void {
  if (provenance !== undefined && provenance !== CUSTOM_PROVENANCE)
    throw invalidMember(member, `is "${provenance}": a role made here is a custom one, of provenance "${CUSTOM_PROVENANCE}"`);
}

/**
 * The methods given, each once, in their order; 400 naming `member[i]` for one NAP does not have
 * (its application is not one of NAP's, or that application has no such operation needing a role).
 */
export function checkMethods(methods: readonly RoleMethod[], member: string, index: MethodIndex = METHODS): RoleMethod[] {
  const seen = new Set<string>();
  const out: RoleMethod[] = [];
  methods.forEach((method, i) => {
    const at = `${member}[${i}]`;
    if (!isApplicationName(method.provenance))
      throw invalidMember(
        at,
        `names the application "${method.provenance}", which NAP does not have (GET /authorization/methods lists the methods)`,
      );
    if (index.operationOf(method) === undefined)
      throw invalidMember(
        at,
        `names ${method.provenance} method "${method.name}", which NAP does not have or which needs no role (GET /authorization/methods lists the methods)`,
      );
    const k = key(method.provenance, method.name);
    if (seen.has(k)) return;
    seen.add(k);
    out.push({ name: method.name, provenance: method.provenance });
  });
  return out;
}

/** The operation ids the methods of these roles allow, each once, sorted; methods NAP no longer has are left out. */
export function operationsOf(roles: readonly { allowedMethods: readonly RoleMethod[] }[], index: MethodIndex = METHODS): string[] {
  const ids = new Set<string>();
  for (const role of roles) {
    for (const method of role.allowedMethods) {
      const id = index.operationOf(method);
      if (id !== undefined) ids.add(id);
    }
  }
  return [...ids].sort();
}
