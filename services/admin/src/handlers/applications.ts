import type { HandlerMap } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { ApplicationDomain } from '../domain/applications';

/** `/applications*`, `/schema/applications/:name` and `/health/applications*`. */
export function applicationHandlers(domain: ApplicationDomain): HandlerMap<'admin'> {
  return {
    getApplications: async (input) => domain.list(input.query),
    getApplication: async (input) => domain.get(input.params.name),
    getApplicationChangelogs: async (input) => domain.changelogs(input.params.name),
    getApplicationSchema: async (input) => domain.schema(input.params.name),
    startApplication: async (input, ctx) => domain.startApplication(input.params.name, ctx.caller.username),
    stopApplication: async (input, ctx) => domain.stopApplication(input.params.name, ctx.caller.username),
    restartApplication: async (input, ctx) => domain.restartApplication(input.params.name, ctx.caller.username),
    updateApplication: async (input, ctx) => domain.update(input.params.name, input.body.properties, ctx.caller.username),
    updateApplicationProperties: async (input, ctx) => domain.setProperties(input.params.name, input.body.properties, ctx.caller.username),
    updateApplicationLogging: async (input, ctx) =>
      domain.setLogLevel(input.params.name, input.body.properties.level, input.body.properties.transport, ctx.caller.username),
    getApplicationsHealth: async (input) => domain.healthList(input.query),
    getApplicationHealth: async (input) => {
      // health() answers one entry for a known name and 404 APPLICATION_NOT_FOUND otherwise
      const [health] = await domain.health(input.params.name);
      if (health === undefined) throw new AppError('APPLICATION_NOT_FOUND', `No application named "${input.params.name}"`);
      return health;
    },
  };
}
