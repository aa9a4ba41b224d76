import { createAuditRecorder, serve } from '@nap/bus';
import type { RegisteredService } from '@nap/bus';
import { RELEASE, auditEntrySchema, isValid } from '@nap/contracts';
import { createSecretBox } from '@nap/runtime';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { DeclaredIndexes } from '@nap/store';
import { reportRetentionDue } from '@nap/telemetry';
import { AdminEvents } from './clients/events';
import { IntegrationCalls } from './clients/integration-calls';
import { OutboundHttp } from './clients/outbound-http';
import { PackageSources } from './clients/package-sources';
import { Replicas } from './clients/replicas';
import { ServiceIndexes } from './clients/service-indexes';
import { SignInMethods } from './clients/sign-in-methods';
import { auditRetentionDays } from './steps/audit';
import { activeAuthentication, profileLiveSettings, seedSignInProviders } from './steps/profiles';
import { signingKeyLoader } from './steps/sessions';
import type { AdminContext } from './context';
import { AdminLiveSettings } from './domain/live-settings';
import { DEFAULT_SCRYPT_COST, generatePassword } from './domain/password';
import { AdapterMonitor } from './engine/adapter-monitor';
import { AuditAppender } from './engine/audit-appender';
import { AuditChainWriter } from './engine/audit-chain-writer';
import { startAuditThread } from './engine/audit-thread';
import type { AuditThreadData } from './engine/audit-thread-protocol';
import { AuditRetention } from './engine/audit-retention';
import type { AuditRetentionTiming } from './engine/audit-retention';
import { ApplicationReconciler } from './engine/application-reconciler';
import { SerializedChanges } from './engine/serialized-changes';
import { bootstrapAdministrator, bootstrapProfiles, reconcileAdministratorPassword, restoreAdministrator } from './engine/bootstrap';
import { registerAdminMetrics, registerLoginMetrics } from './metrics';
import { adminHandlers } from './handlers';
import { AccountRepository } from './store/accounts';
import { ActiveProfileRepository } from './store/active-profile';
import { AdapterRepository } from './store/adapters';
import { ApplicationStateRepository } from './store/application-states';
import { AuditRepository } from './store/audit-records';
import { ADMIN_COLLECTIONS, ensureCollections } from './store/collections';
import { GroupRepository } from './store/groups';
import { RoleRepository } from './store/roles';
import { IntegrationModelSourceRepository } from './store/integration-model-sources';
import { IntegrationModelRepository } from './store/integration-models';
import { IntegrationRepository } from './store/integrations';
import { LinkRepository } from './store/links';
import { LoginAttemptRepository } from './store/login-attempts';
import { PrebuiltRepository } from './store/prebuilts';
import { ProfileRepository } from './store/profiles';
import { SessionRepository } from './store/sessions';
import { BrowserSignInRepository } from './store/browser-sign-ins';
import { ChangeClaimRepository } from './store/change-claims';
import { SigningKeyRepository } from './store/signing-keys';

export interface AdminServiceOptions {
  /** Where the generated first password is shown (once); stderr by default, never the log. */
  announcePassword?: (username: string, password: string) => void;
  /** How often the applications' replicas are brought to their desired state, ms (new replicas, a missed change); 2000 by default. */
  reconcileIntervalMs?: number;
  /** When the audit retention looks for records due for removal (hourly by default). */
  auditRetention?: AuditRetentionTiming;
  /**
   * Runs the audit trail's chain in a thread of its own, which opens the service's store as this
   * (the standalone platform: one process for everything). Without it the chain is written here.
   */
  auditThread?: AuditThreadData;
  /** The clock of login throttling, epoch ms; `Date.now` by default (tests move it rather than wait out a throttle). */
  now?: () => number;
  /**
   * For tests only: scrypt's cost (N, a power of 2 from 2) of the password hashes the service makes,
   * `DEFAULT_SCRYPT_COST` (16384) by default. A test that logs in hundreds of times lowers it, each
   * hash at the default taking about 50 ms of CPU; nothing that starts NAP for use sets it.
   */
  scryptCost?: number;
}

function scryptCostOf(cost: number | undefined): number {
  if (cost === undefined) return DEFAULT_SCRYPT_COST;
  if (!Number.isInteger(cost) || cost < 2 || (cost & (cost - 1)) !== 0)
    throw new Error(`AdminServiceOptions.scryptCost ${cost}: expected a power of 2 from 2 (scrypt's N)`);
  return cost;
}

/**
 * The admin service: accounts, groups, roles, authentication, platform health, and the outside
 * systems (integration models, integrations, adapters), whose credentials it alone holds.
 */
export function createAdminService(deps: ServiceDeps, options: AdminServiceOptions = {}): ServiceModule {
  const { bus, store, logger, metrics, config, client } = deps;
  const secrets = createSecretBox(config.secretKey);
  const settings = new AdminLiveSettings({ tokenTtlSeconds: config.tokenTtlSeconds });
  const http = new OutboundHttp();
  const events = new AdminEvents(bus);
  const replicas = new Replicas(bus);
  const applicationStates = new ApplicationStateRepository(store);
  const modelSources = new IntegrationModelSourceRepository(store);
  const audit = new AuditRepository(store);
  const auditRecorder = createAuditRecorder(bus);
  const svc: AdminContext = {
    accounts: new AccountRepository(store),
    groups: new GroupRepository(store),
    roles: new RoleRepository(store),
    sessions: new SessionRepository(store),
    loginAttempts: new LoginAttemptRepository(store),
    countLogin: registerLoginMetrics(metrics.registry),
    links: new LinkRepository(store),
    applicationStates,
    profiles: new ProfileRepository(store),
    activeProfile: new ActiveProfileRepository(store),
    prebuilts: new PrebuiltRepository(store),
    integrationModels: new IntegrationModelRepository(store),
    modelSources,
    integrations: new IntegrationRepository(store),
    adapters: new AdapterRepository(store),
    audit,
    auditRecorder,
    events,
    http,
    integrationCalls: new IntegrationCalls(http, secrets, async (versionId) => (await modelSources.get(versionId)).openapi, settings),
    packageSources: new PackageSources(logger),
    replicas,
    indexes: new ServiceIndexes(replicas),
    bus,
    storeKind: store.kind,
    pingStore: () => store.ping(),
    storeDisk: async () => (await store.diskSpace?.().catch(() => undefined)) ?? undefined,
    reconciler: new ApplicationReconciler(applicationStates, replicas, logger, {
      profile: () => profileLiveSettings(svc),
      ...(options.reconcileIntervalMs !== undefined ? { reconcileIntervalMs: options.reconcileIntervalMs } : {}),
    }),
    adapterMonitor: new AdapterMonitor(http, secrets, events, logger),
    serialized: new SerializedChanges(new ChangeClaimRepository(store)),
    secrets,
    log: logger,
    settings,
    signingKey: signingKeyLoader(new SigningKeyRepository(store), secrets),
    signIn: new SignInMethods(() => activeAuthentication(svc), logger.child({ component: 'sign-in' }), { publicUrl: config.publicUrl }),
    browserSignIns: new BrowserSignInRepository(store),
    now: options.now ?? Date.now,
    scryptCost: scryptCostOf(options.scryptCost),
  };

  /** A later start with NAP_ADMIN_PASSWORD set: never silent about it, since a login with that password may now fail. */
  async function sayWhatBecameOfAdminPassword(username: string, password: string, reset: boolean): Promise<void> {
    const outcome = await reconcileAdministratorPassword(svc, username, password, reset);
    if (outcome === 'reset')
      logger.warn({ username }, `NAP_ADMIN_PASSWORD_RESET: the password of "${username}" is now NAP_ADMIN_PASSWORD; its sessions ended`);
    else if (outcome === 'ignored')
      logger.warn(
        { username },
        `NAP_ADMIN_PASSWORD is ignored: the account "${username}" was created on an earlier start with another password, which it keeps ` +
          '(the variable only sets the password of the account the first start creates). To change it, log in as it and call ' +
          'PUT /whoami/password (or an administrator calls PUT /user-management/accounts/:accountId/password); if the password is lost, start once with NAP_ADMIN_PASSWORD_RESET=true to apply NAP_ADMIN_PASSWORD',
      );
    else if (outcome === 'no-account')
      logger.warn(
        { username },
        `NAP_ADMIN_PASSWORD is ignored: there is no account "${username}" (NAP_ADMIN_USERNAME); the first administrator was created on an earlier start under another name`,
      );
    if (reset && outcome !== 'no-account') await sayWhatBecameOfAdminRole(username);
  }

  /** `NAP_ADMIN_PASSWORD_RESET`: the first administrator holds the admin role and is active again; says what that took. */
  async function sayWhatBecameOfAdminRole(username: string): Promise<void> {
    const restored = await restoreAdministrator(svc, username);
    if (restored === undefined) {
      logger.info({ username }, `NAP_ADMIN_PASSWORD_RESET: "${username}" is active and holds the admin role; its groups are unchanged`);
      return;
    }
    const done = [
      ...(restored.createdGroup ? [`made the group "${restored.group}" with the admin role (no group of NAP's own gave it)`] : []),
      ...(restored.joined ? [`put "${username}" back in the group "${restored.group}"`] : []),
      ...(restored.reactivated ? [`made "${username}" active again`] : []),
    ];
    logger.warn(
      { username, group: restored.group, createdGroup: restored.createdGroup, joined: restored.joined, reactivated: restored.reactivated },
      `NAP_ADMIN_PASSWORD_RESET: "${username}" holds the admin role again: ${done.join(', ')}. Start without NAP_ADMIN_PASSWORD_RESET from now on`,
    );
  }

  const auditLog = logger.child({ component: 'audit' });
  /** The chain's writer and the trail's upkeep, on the store here or through the audit thread. */
  async function startAuditTrail(): Promise<{ start(): void; stop(): Promise<void> }> {
    const thread = options.auditThread ? await startAuditThread(options.auditThread, auditLog) : undefined;
    if (thread) svc.audit = thread.records;
    const appender = new AuditAppender(
      bus,
      thread?.writer ?? new AuditChainWriter(audit, auditLog, (value) => isValid(auditEntrySchema, value)),
      svc.audit,
      auditLog,
    );
    const retention = new AuditRetention(svc.audit, auditRecorder, () => auditRetentionDays(svc), auditLog, options.auditRetention);
    reportRetentionDue(metrics.registry, 'audit', async () => retention.nextRunAt);
    try {
      await appender.start();
    } catch (err) {
      await thread?.close();
      throw err;
    }
    return {
      start: () => retention.start(),
      async stop() {
        await retention.stop();
        await appender.stop();
        await thread?.close();
      },
    };
  }

  return {
    async start(): Promise<RunningService> {
      await ensureCollections(store);
      // accounts and groups stored before the lists sorted letter case aside: their sort keys
      const keyed = (await svc.accounts.backfillSortKeys()) + (await svc.groups.backfillSortKeys());
      if (keyed > 0) logger.info({ records: keyed }, 'Sort keys given to accounts and groups stored before them');
      // the audit trail takes entries before anything is served: the gateway records the first login
      const auditTrail = await startAuditTrail();
      try {
        return await serveAdmin(auditTrail);
      } catch (err) {
        await auditTrail.stop().catch(() => undefined);
        throw err;
      }
    },
  };

  async function serveAdmin(auditTrail: { start(): void; stop(): Promise<void> }): Promise<RunningService> {
    await bootstrapProfiles(svc);
    const seeded = await seedSignInProviders(svc, { ldap: config.ldap, radius: config.radius, oidc: config.oidc, saml: config.saml });
    if (seeded.length > 0) logger.info({ providers: seeded }, 'Sign-in methods from the environment written into the active profile');
    registerAdminMetrics(metrics.registry, svc, () => settings.sessionIdleMinutes);
    await svc.signingKey();
    const password = config.adminPassword ?? generatePassword();
    const { created } = await bootstrapAdministrator(svc, config.adminUsername, password);
    if (created) {
      logger.info({ username: config.adminUsername }, 'Created the first administrator account and the admins group');
      if (!config.adminPassword) {
        (options.announcePassword ?? announceOnStderr)(config.adminUsername, password);
      }
    } else if (config.adminPassword !== undefined) {
      await sayWhatBecameOfAdminPassword(config.adminUsername, config.adminPassword, config.adminPasswordReset);
    }
    const registered: RegisteredService = await serve({
      bus,
      service: 'admin',
      version: RELEASE,
      logger,
      metrics,
      client,
      idempotency: deps.idempotency,
      handlers: adminHandlers(svc),
      settings: settings.live(),
      indexes: new DeclaredIndexes(store, ADMIN_COLLECTIONS),
    });
    await svc.reconciler.start();
    svc.adapterMonitor.resume(await svc.adapters.running());
    auditTrail.start();
    return {
      name: 'admin',
      stop: async () => {
        await svc.reconciler.stop();
        await registered.stop();
        await auditTrail.stop();
        await svc.adapterMonitor.shutdown();
        await svc.signIn.close();
        await http.close();
      },
    };
  }
}

function announceOnStderr(username: string, password: string): void {
  process.stderr.write(
    `\nNAP first start: administrator "${username}" created with password: ${password}\nIt is shown once: log in and change it (Change password in the console, nap password, or PUT /whoami/password).\n\n`,
  );
}
