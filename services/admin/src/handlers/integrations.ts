import type { HandlerMap } from '@nap/bus';
import type { IntegrationDomain } from '../domain/integrations';

/** `/integrations*` and `/schema/integrations/:name`. */
export function integrationHandlers(domain: IntegrationDomain): HandlerMap<'admin'> {
  return {
    createIntegration: async (input, ctx) => domain.createIntegration(input.body.properties, ctx.caller.username),
    updateIntegration: async (input, ctx) => domain.updateIntegration(input.params.name, input.body.properties, ctx.caller.username),
    updateIntegrationProperties: async (input, ctx) =>
      domain.updateIntegration(input.params.name, input.body.properties, ctx.caller.username),
    getIntegration: async (input) => domain.getIntegration(input.params.name),
    getIntegrations: async (input) => domain.listIntegrations(input.query),
    getIntegrationSchema: async (input) => domain.integrationSchema(input.params.name),
    deleteIntegration: async (input) => {
      await domain.deleteIntegration(input.params.name);
      return { status: 'success', message: `Integration "${input.params.name}" deleted` };
    },
  };
}
