import type { DiskSpace } from '@nap/store';
import type { AuditRecorder, AuditSink, Bus } from '@nap/bus';
import type { SecretBox } from '@nap/runtime';
import type { Logger } from '@nap/telemetry';
import type { AdminEvents } from './clients/events';
import type { IntegrationCalls } from './clients/integration-calls';
import type { OutboundHttp } from './clients/outbound-http';
import type { PackageSources } from './clients/package-sources';
import type { Replicas } from './clients/replicas';
import type { ServiceIndexes } from './clients/service-indexes';
import type { SignInMethods } from './clients/sign-in-methods';
import type { AdminLiveSettings } from './domain/live-settings';
import type { SigningKey } from './domain/signing-key';
import type { AdapterMonitor } from './engine/adapter-monitor';
import type { ApplicationReconciler } from './engine/application-reconciler';
import type { SerializedChanges } from './engine/serialized-changes';
import type { LoginOutcome, LoginVia } from './metrics';
import type { AccountRepository } from './store/accounts';
import type { ActiveProfileRepository } from './store/active-profile';
import type { AdapterRepository } from './store/adapters';
import type { ApplicationStateRepository } from './store/application-states';
import type { AuditRecords } from './store/audit-records';
import type { BrowserSignInRepository } from './store/browser-sign-ins';
import type { GroupRepository } from './store/groups';
import type { IntegrationModelSourceRepository } from './store/integration-model-sources';
import type { IntegrationModelRepository } from './store/integration-models';
import type { IntegrationRepository } from './store/integrations';
import type { LinkRepository } from './store/links';
import type { LoginAttemptRepository } from './store/login-attempts';
import type { PrebuiltRepository } from './store/prebuilts';
import type { ProfileRepository } from './store/profiles';
import type { RoleRepository } from './store/roles';
import type { SessionRepository } from './store/sessions';

export type { AuditSink };

/** What every admin handler receives: the repositories, the clients, the engine parts and the live settings. */
export interface AdminContext {
  accounts: AccountRepository;
  groups: GroupRepository;
  /** Custom roles (the built-in ones are the contracts'). */
  roles: RoleRepository;
  sessions: SessionRepository;
  /** Counts of failed logins per username and per address (login protection). */
  loginAttempts: LoginAttemptRepository;
  /** Counts a login attempt's outcome in `nap_logins_total`. */
  countLogin(via: LoginVia, outcome: LoginOutcome): void;
  links: LinkRepository;
  applicationStates: ApplicationStateRepository;
  profiles: ProfileRepository;
  activeProfile: ActiveProfileRepository;
  prebuilts: PrebuiltRepository;
  integrationModels: IntegrationModelRepository;
  modelSources: IntegrationModelSourceRepository;
  integrations: IntegrationRepository;
  adapters: AdapterRepository;
  /** The audit trail's chain (appended by the engine's AuditAppender, read by the audit routes). */
  audit: AuditRecords;
  /** Records the admin service's own platform actions (retention) in the audit trail. */
  auditRecorder: AuditRecorder;
  events: AdminEvents;
  /** Calls to outside systems, with the authentication of an integration or adapter added. */
  http: OutboundHttp;
  integrationCalls: IntegrationCalls;
  packageSources: PackageSources;
  replicas: Replicas;
  indexes: ServiceIndexes;
  /** The bus, for its own health and for gathering every process's metrics. */
  bus: Bus;
  storeKind: string;
  pingStore(): Promise<void>;
  /** The disk under this service's store, where the store reads it (embedded); undefined otherwise or when it cannot be read. */
  storeDisk(): Promise<DiskSpace | undefined>;
  reconciler: ApplicationReconciler;
  /**
   * Changes that check a rule across records and then write, one at a time across every replica
   * (a claim in the store): keeping an administrator, and models in use.
   */
  serialized: SerializedChanges;
  adapterMonitor: AdapterMonitor;
  /** Seals secrets at rest (`NAP_SECRET_KEY`) and opens them only where a call is made. */
  secrets: SecretBox;
  log: Logger;
  /** Settings that change while the service runs; read on every use. */
  settings: AdminLiveSettings;
  /** The token signing key, generated on the first start and opened once per process. */
  signingKey(): Promise<SigningKey>;
  /** The external sign-in methods of the active profile (LDAP, RADIUS, …), built again when it changes. */
  signIn: SignInMethods;
  /** Browser sign-ins under way (OIDC, SAML) and SAML assertions seen. */
  browserSignIns: BrowserSignInRepository;
  /** The clock of login throttling, epoch ms (tests move it rather than wait). */
  now(): number;
  /** scrypt's cost (N) of the password hashes made: `DEFAULT_SCRYPT_COST` but in tests. */
  scryptCost: number;
}
