import { AppError, validateAgainst } from '@nap/contracts';
import type { JsonSchema, ValidationProblem, WorkflowDocument } from '@nap/contracts';
import { errorMessage, isRecord } from '@nap/util';
import { cloneJson } from '../domain/builtins/types';

/** Schema versions kept compiled at most. */
const CACHED_SCHEMAS = 500;

/**
 * JSON Schemas written by users (a workflow's `inputSchema`, a trigger's `schema`), each copied once
 * per version (without `$id` and `$schema`, which would clash between documents) and kept, so that
 * the validator compiled for it is reused; the oldest is dropped beyond 500.
 */
export class UserSchemas {
  private readonly schemas = new Map<string, JsonSchema>();

  /**
   * Every problem of `value` against `schema` (kept under `key`, which names the document version),
   * members prefixed by `label`. Throws the error of `unusable` when the schema does not compile.
   */
  problems(
    key: string,
    schema: Record<string, unknown>,
    value: unknown,
    label: string,
    unusable: (message: string) => AppError,
  ): ValidationProblem[] {
    let compiled = this.schemas.get(key);
    if (compiled === undefined) {
      compiled = cloneJson(schema);
      delete compiled.$id;
      delete compiled.$schema;
      this.schemas.set(key, compiled);
      if (this.schemas.size > CACHED_SCHEMAS) this.dropOldest();
    }
    try {
      return validateAgainst(compiled, value, label);
    } catch (err) {
      this.schemas.delete(key);
      throw unusable(errorMessage(err));
    }
  }

  private dropOldest(): void {
    for (const key of this.schemas.keys()) {
      this.schemas.delete(key);
      return;
    }
  }
}

/** Checks the variables of a new job against its workflow's `inputSchema`. */
export class InputSchemaCache {
  private readonly schemas = new UserSchemas();

  /**
   * Throws JOB_VARIABLES_INVALID naming every problem, or WORKFLOW_INVALID when the inputSchema is not
   * a usable JSON Schema. `provided` are the variables the platform gives every job (`_id`,
   * `initiator`): they take part, over the given ones, where the schema names them.
   */
  check(workflow: WorkflowDocument, given: Record<string, unknown>, provided: Record<string, unknown> = {}): void {
    const schema = workflow.inputSchema;
    if (!isRecord(schema) || Object.keys(schema).length === 0) return;
    const named = new Set([
      ...Object.keys(isRecord(schema.properties) ? schema.properties : {}),
      ...(Array.isArray(schema.required) ? schema.required.map(String) : []),
    ]);
    const variables = { ...given, ...Object.fromEntries(Object.entries(provided).filter(([name]) => named.has(name))) };
    const key = `${String(workflow._id)}@${String(workflow.last_updated ?? '')}@${JSON.stringify(schema).length}`;
    const problems = this.schemas.problems(
      key,
      schema,
      variables,
      'variables',
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
  }
}
