import { ROLE_SETS } from '../roles';
import { arr, embed, obj, str } from '../schemas/common';
import {
  parseTemplateBodySchema,
  renderJinjaBodySchema,
  renderJinjaResultSchema,
  renderJinjaTextBodySchema,
  textFsmRecordSchema,
} from '../schemas/template-builder';
import type { OperationSpec } from './define';

const RENDERER_NOTES =
  'Rendered by Python Jinja2 (Debian python3-jinja2, 3.1.2) in a sandbox (jinja2.sandbox.SandboxedEnvironment) by a pool of long-lived workers of the studio service. ' +
  'Errors: 422 TEMPLATE_RENDER_FAILED (syntax or render error, with the line), 400 TEMPLATE_SANDBOX_VIOLATION (an attribute such as __class__), ' +
  '422 TEMPLATE_TIMEOUT naming the limit (NAP_TEMPLATE_TIMEOUT_MS), 422 TEMPLATE_OUTPUT_TOO_LARGE (NAP_TEMPLATE_MAX_OUTPUT_BYTES), 503 TEMPLATE_RENDERER_UNAVAILABLE (Python missing, worker restarting).';

/**
 * Operations of the template builder, served by the studio service: Jinja2 renders and TextFSM
 * parses of studio templates, and the bus-only render that device templates of gateway-devices use,
 * so that the platform has one Jinja2. The workflow tasks `TemplateBuilder.renderJinjaTemplate`
 * (`{ name, context }` → `renderedTemplate`) and `TemplateBuilder.parseTemplate` run these.
 */
export const TEMPLATE_BUILDER_OPERATIONS = [
  {
    name: 'renderJinjaTemplate',
    summary: 'Render a stored jinja2 template with a context',
    http: { method: 'POST', path: '/template_builder/templates/:name/renderJinja' },
    roles: ROLE_SETS.run,
    body: embed(renderJinjaBodySchema),
    response: embed(renderJinjaResultSchema),
    addition: true,
    notes:
      'The template is found by name, then by id; a name without a project prefix also finds the one project member "@<project id>: <name>" (409 CONFLICT when several projects have one). ' +
      'Python Jinja2 defaults: no autoescape, a missing variable prints nothing, block tags keep their newlines, one trailing newline is dropped. ' +
      '404 TEMPLATE_NOT_FOUND, 422 TEMPLATE_TYPE_MISMATCH for a textfsm template. ' +
      RENDERER_NOTES,
  },
  {
    name: 'parseTemplate',
    summary: 'Parse text with a TextFSM template',
    http: { method: 'POST', path: '/template_builder/parseTemplate' },
    roles: ROLE_SETS.run,
    body: embed(parseTemplateBodySchema),
    response: arr(embed(textFsmRecordSchema)),
    addition: true,
    notes:
      'name (a stored textfsm template, found as renderJinjaTemplate finds one) or template (the TextFSM text), not both; answers TextFSM ParseTextToDicts: one object per record. ' +
      'Parsed by Google TextFSM (Debian python3-textfsm, 1.1.0) in the same worker pool. 422 TEMPLATE_PARSE_FAILED for an invalid template or an Error action, ' +
      '422 TEMPLATE_TIMEOUT, 422 TEMPLATE_OUTPUT_TOO_LARGE, 503 TEMPLATE_RENDERER_UNAVAILABLE.',
  },
  {
    name: 'renderJinjaText',
    summary: 'Render a Jinja2 text (for other services)',
    roles: ROLE_SETS.read,
    body: embed(renderJinjaTextBodySchema),
    response: obj({ rendered: str({ description: 'the rendered text' }) }, ['rendered']),
    addition: true,
    notes:
      'Bus-only: gateway-devices renders device templates with profile device through it. 422 TEMPLATE_RENDER_FAILED carries details.missing (the variables used without a value) for profile device. ' +
      RENDERER_NOTES,
  },
] as const satisfies readonly OperationSpec[];
