import type { HandlerMap } from '@nap/bus';
import type { IntegrationDomain } from '../domain/integrations';

/** `/integration-models*`. */
export function integrationModelHandlers(domain: IntegrationDomain): HandlerMap<'admin'> {
  return {
    createIntegrationModel: async (input, ctx) => domain.createModel(input.body.model, ctx.caller.username),
    updateIntegrationModel: async (input, ctx) => domain.updateModel(input.body.model, ctx.caller.username),
    validateIntegrationModel: async (input) => domain.validateModel(input.body.model),
    getIntegrationModel: async (input) => domain.getModel(input.params.name),
    getIntegrationModels: async (input) => domain.listModels(input.query),
    exportIntegrationModel: async (input) => domain.exportModel(input.params.name),
    deleteIntegrationModel: async (input) => {
      const model = await domain.deleteModel(input.params.name);
      return { status: 'success', message: `Integration model "${model.versionId}" deleted` };
    },
  };
}
