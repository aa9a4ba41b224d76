import type { Caller } from '@nap/contracts';
import type { HandlerMap } from '@nap/bus';
import { renderTemplate } from '../domain/template-render';
import type { DeviceTemplateInput } from '../store/template-repository';
import type { GatewayContext } from './context';

/** Device templates of the configuration manager: operation 12 and the CRUD and render additions. */
export function deviceTemplateHandlers(g: GatewayContext): HandlerMap {
  return {
    searchDeviceTemplates: async (input: { body: { name: string; options: Record<string, unknown> }; caller: Caller }) =>
      g.templates.search(input.body.name, input.body.options, input.caller),
    createDeviceTemplate: async (input: { body: DeviceTemplateInput; caller: Caller }) => g.templates.create(input.body, input.caller),
    getDeviceTemplate: async (input: { params: { id: string }; caller: Caller }) => g.templates.get(input.params.id, input.caller),
    updateDeviceTemplate: async (input: { params: { id: string }; body: DeviceTemplateInput; caller: Caller }) => g.templates.replace(input.params.id, input.body, input.caller),
    deleteDeviceTemplate: async (input: { params: { id: string }; caller: Caller }) => {
      const removed = await g.templates.delete(input.params.id, input.caller);
      return { status: 'success', message: `Device template "${removed.name}" deleted` };
    },
    renderDeviceTemplate: async (input: { params: { id: string }; body: { variables: Record<string, unknown> }; caller: Caller }) => {
      const template = await g.templates.get(input.params.id, input.caller);
      return { rendered: renderTemplate(template.name, template.template, { ...template.variables, ...input.body.variables }) };
    },
  } as HandlerMap;
}
