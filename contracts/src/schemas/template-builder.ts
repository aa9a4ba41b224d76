import type { Static } from '@sinclair/typebox';
import {
  anyObject,
  anyValue,
  bool,
  closed,
  literal,
  mapOf,
  name,
  nullable,
  num,
  obj,
  oneOf,
  str,
  strings,
  withId,
  withOneOf,
} from './common';

/**
 * The template builder: studio templates rendered with Python's Jinja2 and parsed with Google's
 * TextFSM, by the studio service's pool of Python workers.
 */

/**
 * How a Jinja2 text is rendered. `templateBuilder`: Python Jinja2's defaults, as TemplateBuilder
 * templates always rendered (no autoescape, a missing variable prints nothing, block tags keep their
 * newlines, a single trailing newline dropped). `device`: device templates of the configuration
 * manager (`trim_blocks`, `lstrip_blocks`, `keep_trailing_newline`, and a variable the context lacks
 * fails the render when printed, iterated or used; conditions may still test it).
 */
export const JINJA_PROFILES = ['templateBuilder', 'device'] as const;
/** One of {@link JINJA_PROFILES}. */
export type JinjaProfile = (typeof JINJA_PROFILES)[number];

/** Body of `POST /template_builder/templates/:name/renderJinja`. */
export const renderJinjaBodySchema = withId(
  'nap:schemas/render-jinja-body',
  obj({ context: anyObject('the variables of the template, by name') }, ['context']),
);
/** `{ context }`: the variables the stored template renders with. */
export type RenderJinjaBody = Static<typeof renderJinjaBodySchema>;

/** Answer of `renderJinja`. */
export const renderJinjaResultSchema = withId(
  'nap:schemas/render-jinja-result',
  obj({ renderedTemplate: str({ description: 'the rendered text' }) }, ['renderedTemplate']),
);
/** `{ renderedTemplate }`. */
export type RenderJinjaResult = Static<typeof renderJinjaResultSchema>;

/** Body of `POST /template_builder/parseTemplate`: a stored textfsm template by name, or a template text, and the text to parse. */
export const parseTemplateBodySchema = withId(
  'nap:schemas/parse-template-body',
  withOneOf(
    obj(
      {
        name: name('name (or id) of a stored textfsm template'),
        template: str({ description: 'a TextFSM template text, instead of name' }),
        text: str({ description: 'the text to parse, such as a command output' }),
      },
      ['text'],
    ),
    ['name', 'template'],
  ),
);
/** `{ name | template, text }`. */
export type ParseTemplateBody = Static<typeof parseTemplateBodySchema>;

/** One TextFSM record (`ParseTextToDicts`): value name → string, or a list for `List` values. */
export const textFsmRecordSchema = withId(
  'nap:schemas/textfsm-record',
  mapOf(anyValue(), { description: 'value name → string, or list for List values' }),
);
/** One record of a TextFSM parse. */
export type TextFsmRecord = Static<typeof textFsmRecordSchema>;

/** Body of the bus-only `studio.renderJinjaText`: a Jinja2 text rendered by the platform's one renderer. */
export const renderJinjaTextBodySchema = withId(
  'nap:schemas/render-jinja-text-body',
  closed(
    {
      template: str({ description: 'the Jinja2 text' }),
      context: anyObject('the variables, by name'),
      profile: oneOf(JINJA_PROFILES, {
        description:
          'templateBuilder (Python Jinja2 defaults) or device (trim_blocks, lstrip_blocks, keep_trailing_newline, strict undefined)',
      }),
      label: str({ description: 'how error messages name the template, such as: Device template "core-base"' }),
    },
    ['template', 'context', 'profile'],
  ),
);
/** `{ template, context, profile }`. */
export type RenderJinjaTextBody = Static<typeof renderJinjaTextBodySchema>;

/** `details` of a `TEMPLATE_RENDER_FAILED` error: what failed, where, and the variables a strict render used without a value. */
export const templateRenderFailureSchema = withId(
  'nap:schemas/template-render-failure',
  obj(
    {
      kind: str({ description: 'syntax, undefined, render or memory' }),
      line: num({ description: 'template line' }),
      missing: strings({ description: 'variables without a value' }),
    },
    ['kind'],
  ),
);
/** The details of a failed render. */
export type TemplateRenderFailure = Static<typeof templateRenderFailureSchema>;

/** Kinds of failure a template worker reports (see `services/studio/src/python/template_worker.py`). */
export const TEMPLATE_WORKER_ERROR_KINDS = [
  'syntax',
  'undefined',
  'render',
  'security',
  'output_limit',
  'memory',
  'textfsm_template',
  'textfsm_parse',
  'bad_request',
] as const;

const templateWorkerErrorSchema = obj(
  {
    kind: oneOf(TEMPLATE_WORKER_ERROR_KINDS),
    message: str({ description: "Python's message" }),
    line: num({ description: 'template line, where known' }),
    missing: strings({ description: 'variables a strict render used without a value' }),
  },
  ['kind', 'message'],
);
/** Why a template worker could not do what it was asked. */
export type TemplateWorkerError = Static<typeof templateWorkerErrorSchema>;

/** The first line of a template worker that can work: the versions it runs. */
export const templateWorkerReadySchema = withId(
  'nap:schemas/template-worker-ready',
  obj({ ready: literal(true), python: str(), jinja2: str(), textfsm: str() }, ['ready', 'python', 'jinja2', 'textfsm']),
);

/** The first (and last) line of a template worker whose Python lacks a module. */
export const templateWorkerNotReadySchema = withId(
  'nap:schemas/template-worker-not-ready',
  obj({ ready: literal(false), missing: nullable(str()), error: str() }, ['ready', 'error']),
);

/** A template worker's answer to request `id` (null when it could not read the request). */
export const templateWorkerReplySchema = withId(
  'nap:schemas/template-worker-reply',
  obj({ id: nullable(num()), ok: bool(), value: anyValue(), error: templateWorkerErrorSchema }, ['id', 'ok']),
);
