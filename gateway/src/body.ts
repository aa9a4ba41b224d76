import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import typeis from 'type-is';
import { AppError, BODY_LIMITS, jsonTextExceedsDepth, jsonTooDeep } from '@nap/contracts';
import type { BodyLimit, OperationDef } from '@nap/contracts';

/** Largest body the gateway reads unless told otherwise. */
export const DEFAULT_BODY_LIMIT = '1mb';

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPE = 'application/x-www-form-urlencoded';

type BodyParser = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** Reads the body of a request for `op`: undefined when there is none. */
export type BodyReader = (op: OperationDef, req: IncomingMessage, res: ServerResponse) => Promise<unknown>;

export interface BodyOptions {
  /** Largest accepted body, in bytes or a size string (`1mb`). */
  bodyLimit?: string | number;
  /**
   * Largest accepted body of the operations whose catalog entry says `bodyLimit: 'document'`, in
   * bytes; {@link BODY_LIMITS}`.document` by default, never less than `bodyLimit`.
   */
  documentBodyLimit?: number;
  /** Deepest nesting of a JSON body. */
  maxJsonDepth: number;
}

/**
 * The body step: JSON for every operation, form bodies for those whose `accepts` lists
 * `application/x-www-form-urlencoded` (body-parser's parsers, called on Node's request directly).
 *
 * Errors: `UNSUPPORTED_MEDIA_TYPE` for a content type the operation does not accept, `JSON_TOO_DEEP`
 * when the nesting is over `maxJsonDepth` (checked on the raw bytes, before `JSON.parse` or anything
 * after it walks the body); body-parser's own errors are mapped by `toHttpError` (errors.ts).
 */
export function createBodyReader(options: BodyOptions): BodyReader {
  const { maxJsonDepth } = options;
  const parsersOf = (limit: string | number): { json: BodyParser; form: BodyParser } => ({
    json: bodyParser.json({
      limit,
      type: JSON_TYPES,
      strict: false,
      verify: (_req, _res, buf) => {
        if (jsonTextExceedsDepth(buf, maxJsonDepth)) throw jsonTooDeep('The request body', maxJsonDepth);
      },
    }),
    form: bodyParser.urlencoded({ limit, extended: false, type: FORM_TYPE }),
  });
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const documentLimit = Math.max(options.documentBodyLimit ?? BODY_LIMITS.document.bytes, bytes(limit));
  const parsers: Record<BodyLimit, { json: BodyParser; form: BodyParser }> = {
    default: parsersOf(limit),
    document: parsersOf(documentLimit),
  };

  return async (op, req, res) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!hasBody) return undefined;
    const accepted = op.accepts ?? JSON_TYPES;
    if (!acceptsContentType(req, accepted)) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `${req.method} ${op.http?.path} accepts ${accepted.join(' or ')}, not ${req.headers['content-type'] ?? 'a body without a content type'}`,
      );
    }
    const { json, form } = parsers[op.bodyLimit ?? 'default'];
    const parser = accepted.includes(FORM_TYPE) ? form : json;
    const target = req as IncomingMessage & { body?: unknown };
    await new Promise<void>((resolve, reject) => {
      parser(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    });
    return target.body;
  };
}

/** What type-is answered for a content type against an operation's accepted types (a client sends few types; bounded). */
const typeAnswers = new WeakMap<readonly string[], Map<string, boolean>>();
const REMEMBERED_TYPES = 64;

/**
 * Whether the body of `req` (which has one) is of a type in `accepted`, as type-is says: the answer
 * depends on the content type alone, so it is remembered per type rather than parsed and matched
 * for every request (about as much as reading the body).
 */
function acceptsContentType(req: IncomingMessage, accepted: readonly string[]): boolean {
  const type = req.headers['content-type'];
  if (type === undefined) return Boolean(typeis(req, [...accepted]));
  let answers = typeAnswers.get(accepted);
  if (answers === undefined) {
    answers = new Map();
    typeAnswers.set(accepted, answers);
  }
  let answer = answers.get(type);
  if (answer === undefined) {
    answer = Boolean(typeis(req, [...accepted]));
    if (answers.size >= REMEMBERED_TYPES) answers.clear();
    answers.set(type, answer);
  }
  return answer;
}

/** A limit as body-parser takes it (bytes, or a size string such as `1mb`), in bytes. */
function bytes(limit: string | number): number {
  if (typeof limit === 'number') return limit;
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(limit.trim());
  if (m === null) return 0;
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb' | 'gb'];
  return Math.floor(Number(m[1]) * unit);
}
