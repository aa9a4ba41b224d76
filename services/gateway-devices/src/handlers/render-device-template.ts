import type { Handler } from '@nap/bus';
import { assertJsonDepth, assertNoMisspelledBody } from '@nap/contracts';
import { deviceRenderError } from '../domain/template-render';
import type { GatewayDevicesContext } from '../context';

/**
 * Renders a device template with the given variables over its defaults, through the platform's one
 * Jinja2 (studio, profile `device`); 422 naming a missing variable.
 */
export function renderDeviceTemplate(svc: GatewayDevicesContext): Handler<'gateway-devices.renderDeviceTemplate'> {
  return async (input, ctx) => {
    // `varibles` would render the template with its defaults alone
    assertNoMisspelledBody(ctx.operation, input.body);
    const template = await svc.templates.get(input.params.id, input.caller);
    const context = { ...template.variables, ...input.body.variables };
    // the renderer walks the context recursively: bound it like every other walk of user JSON
    assertJsonDepth(context, `The variables of device template "${template.name}"`);
    try {
      const { rendered } = await ctx.call('studio.renderJinjaText', {
        body: { template: template.template, context, profile: 'device', label: `Device template "${template.name}"` },
      });
      return { rendered };
    } catch (err) {
      throw deviceRenderError(template.name, err);
    }
  };
}
