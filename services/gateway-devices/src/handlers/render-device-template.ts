import type { Handler } from '@nap/bus';
import { renderTemplate } from '../domain/template-render';
import type { GatewayContext } from '../context';

/** Renders a device template with the given variables over its defaults (422 naming a missing one). */
export function renderDeviceTemplate(g: GatewayContext): Handler<'gateway-devices.renderDeviceTemplate'> {
  return async (input) => {
    const template = await g.templates.get(input.params.id, input.caller);
    return { rendered: renderTemplate(template.name, template.template, { ...template.variables, ...input.body.variables }) };
  };
}
