import { AppError, validateAgainst } from '@nap/contracts';
import type { JsonSchema, ValidationProblem, WorkflowDocument } from '@nap/contracts';
import { errorMessage, isRecord } from '@nap/util';
import { cloneJson } from '../domain/builtins/types';
import type { SchemaThread } from './schema-thread';

/** Schema versions remembered at most (copied once, and those whose check overran). */
const CACHED_SCHEMAS = 500;

/** The patterns of a schema (`pattern`, the keys of `patternProperties`), to name in a message. */
function patternsOf(schema: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) patternsOf(item, found);
  else if (isRecord(schema)) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      if (key === 'patternProperties' && isRecord(value)) for (const p of Object.keys(value)) found.add(p);
      if (key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples') patternsOf(value, found);
    }
  }
  return found;
}

/**
 * JSON Schemas written by users (a workflow's `inputSchema`, a trigger's `schema`, a form's schema),
 * each copied once per version (without `$id` and `$schema`, which would clash between documents)
 * and, when it has a `pattern` or `patternProperties` of its own, checked in a thread with a time
 * limit (see {@link SchemaThread}): a pattern that backtracks without end costs that thread, not
 * the service. A schema without one is checked here, in time linear in the value. A schema version whose check overran once is
 * refused at once afterwards (the next value would stop the thread again): a change to its document
 * makes a new version.
 */
export class UserSchemas {
  private readonly schemas = new Map<string, JsonSchema>();
  /** Versions whose schema has a pattern of its own: only those go to the thread. */
  private readonly patterned = new Set<string>();
  private readonly overran = new Set<string>();

  constructor(private readonly thread: SchemaThread) {}

  /**
   * Every problem of `value` against `schema` (kept under `key`, which names the document version),
   * members prefixed by `label`, and the value with the defaults of its schema filled in. Throws the
   * error of `unusable` when the schema does not compile or its check overran the time limit.
   */
  async problems(
    key: string,
    schema: Record<string, unknown>,
    value: unknown,
    label: string,
    unusable: (message: string) => AppError,
  ): Promise<{ problems: ValidationProblem[]; value: unknown }> {
    if (this.overran.has(key)) throw unusable(this.overranMessage(schema, label, undefined));
    let copy = this.schemas.get(key);
    if (copy === undefined) {
      copy = cloneJson(schema);
      delete copy.$id;
      delete copy.$schema;
      this.schemas.set(key, copy);
      if (patternsOf(copy).size > 0) this.patterned.add(key);
      if (this.schemas.size > CACHED_SCHEMAS) {
        const oldest = dropOldest(this.schemas);
        if (oldest !== undefined) this.patterned.delete(oldest);
      }
    }
    // without a pattern of the user's, a check is linear in the value: no need of the thread's round trip
    if (!this.patterned.has(key)) {
      try {
        return { problems: validateAgainst(copy, value, label), value };
      } catch (err) {
        this.schemas.delete(key);
        throw unusable(errorMessage(err));
      }
    }
    const checked = await this.thread.check(key, copy, value, label);
    switch (checked.kind) {
      case 'checked':
        return { problems: checked.problems, value: checked.value };
      case 'unusable':
        this.schemas.delete(key);
        throw unusable(checked.message);
      case 'timedOut':
        this.overran.add(key);
        if (this.overran.size > CACHED_SCHEMAS) dropOldest(this.overran);
        throw unusable(this.overranMessage(schema, label, checked.timeoutMs));
    }
  }

  private overranMessage(schema: Record<string, unknown>, label: string, timeoutMs: number | undefined): string {
    const patterns = [...patternsOf(schema)].map((p) => `"${p}"`);
    const when = timeoutMs === undefined ? 'overran its time limit before and is not used again' : `was stopped after ${timeoutMs} ms`;
    return (
      `checking ${label} against it ${when}` +
      (patterns.length > 0 ? `; its patterns (${patterns.join(', ')}) may backtrack without end (nested quantifiers such as (a+)+)` : '') +
      ': simplify the schema'
    );
  }
}

function dropOldest(keys: { keys(): IterableIterator<string>; delete(key: string): boolean }): string | undefined {
  for (const key of keys.keys()) {
    keys.delete(key);
    return key;
  }
  return undefined;
}

/** Checks the variables of a new job against its workflow's `inputSchema`. */
export class InputSchemaCache {
  private readonly schemas: UserSchemas;

  constructor(thread: SchemaThread) {
    this.schemas = new UserSchemas(thread);
  }

  /**
   * Throws JOB_VARIABLES_INVALID naming every problem, or WORKFLOW_INVALID when the inputSchema is not
   * a usable JSON Schema (or its check overran the time limit). `provided` are the variables the
   * platform gives every job (`_id`, `initiator`): they take part, over the given ones, where the
   * schema names them. Defaults the schema gives inside a given variable are filled into it.
   * `label` names the variables in the problems as the request gave them (`options.variables.device`).
   */
  async check(
    workflow: WorkflowDocument,
    given: Record<string, unknown>,
    provided: Record<string, unknown> = {},
    label = 'variables',
  ): Promise<void> {
    const schema = workflow.inputSchema;
    if (!isRecord(schema) || Object.keys(schema).length === 0) return;
    const named = new Set([
      ...Object.keys(isRecord(schema.properties) ? schema.properties : {}),
      ...(Array.isArray(schema.required) ? schema.required.map(String) : []),
    ]);
    const variables = { ...given, ...Object.fromEntries(Object.entries(provided).filter(([name]) => named.has(name))) };
    const key = `${String(workflow._id)}@${String(workflow.last_updated ?? '')}@${JSON.stringify(schema).length}`;
    const { problems, value } = await this.schemas.problems(
      key,
      schema,
      variables,
      label,
      (message) =>
        new AppError('WORKFLOW_INVALID', `The inputSchema of workflow "${workflow.name}" is not a usable JSON Schema: ${message}`),
    );
    if (problems.length > 0) {
      throw new AppError(
        'JOB_VARIABLES_INVALID',
        `The variables do not match the inputSchema of workflow "${workflow.name}": ${problems.map((p) => p.message).join('; ')}`,
        { details: problems },
      );
    }
    if (isRecord(value)) for (const name of Object.keys(given)) if (name in value) given[name] = value[name];
  }
}
