import { serve } from '@nap/bus';
import type { RegisteredService } from '@nap/bus';
import { AppError, RELEASE, eventSubject, getEvent, validateEvent } from '@nap/contracts';
import { createSecretBox } from '@nap/runtime';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { AdminDomain } from './domain/admin';
import { generatePassword } from './domain/password';
import { accountHandlers } from './handlers/accounts';
import { authHandlers } from './handlers/auth';
import { groupHandlers } from './handlers/groups';
import { healthHandlers } from './handlers/health';
import { ensureCollections } from './store/collections';

export interface AdminServiceOptions {
  /** Where the generated first password is shown (once); stderr by default, never the log. */
  announcePassword?: (username: string, password: string) => void;
}

/** The admin service: accounts, groups, roles, authentication, platform health. */
export function createAdminService(deps: ServiceDeps, options: AdminServiceOptions = {}): ServiceModule & { domain: AdminDomain } {
  const { bus, store, logger, metrics, config, client } = deps;
  const domain = new AdminDomain({
    store,
    secrets: createSecretBox(config.secretKey),
    tokenTtlSeconds: config.tokenTtlSeconds,
    emit: async (entity, id, event, payload) => {
      // the payload schemas of contracts are the promise to subscribers: never publish one that breaks it
      const problems = validateEvent(getEvent('admin', entity, event), payload);
      if (problems.length > 0) throw new AppError('INTERNAL', `Event ${entity}.${event} does not match its schema: ${problems.map((p) => p.message).join('; ')}`);
      await bus.publishEvent(eventSubject('admin', entity, id, event), Buffer.from(JSON.stringify(payload)));
    },
  });

  return {
    domain,
    async start(): Promise<RunningService> {
      await ensureCollections(store);
      await domain.signingKey();
      const password = config.adminPassword ?? generatePassword();
      const { created } = await domain.bootstrap(config.adminUsername, password);
      if (created) {
        logger.info({ username: config.adminUsername }, 'Created the first administrator account and the admins group');
        if (!config.adminPassword) {
          (options.announcePassword ?? announceOnStderr)(config.adminUsername, password);
        }
      }
      const registered: RegisteredService = await serve({
        bus,
        service: 'admin',
        version: RELEASE,
        logger,
        metrics,
        client,
        handlers: {
          ...authHandlers(domain),
          ...accountHandlers(domain),
          ...groupHandlers(domain),
          ...healthHandlers(bus, store.kind, () => store.ping()),
        },
      });
      return { name: 'admin', stop: () => registered.stop() };
    },
  };
}

function announceOnStderr(username: string, password: string): void {
  process.stderr.write(`\nNAP first start: administrator "${username}" created with password: ${password}\nIt is shown once; change it with PUT /user-management/accounts/:accountId/password.\n\n`);
}
