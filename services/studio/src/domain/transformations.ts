import { parseAs, transformationInputSchema, validateAgainst } from '@nap/contracts';
import type {
  JsonSchema,
  ResponseOf,
  Transformation,
  TransformationInput,
  TransformationProblem,
  TransformationRunOptions,
} from '@nap/contracts';
import { checked } from './checked';
import { camelStamp, withoutCamelStamp } from './documents';
import type { OriginalStamp, SaveStamp } from './documents';
import { checkSchemaMembers, compileTransformation, invalidTransformation, migrateTransformation, runTransformationPlan } from './jst';
import type { IncomingValidator, Migration, RegexRunner, RunLimits, TransformationPlan } from './jst';

/** What checking a submitted transformation gives: the migrated document, and its errors and warnings. */
export interface TransformationCheck {
  doc: TransformationInput;
  errors: TransformationProblem[];
  warnings: TransformationProblem[];
}

/** What a migration changed, as warnings for the client: in the past tense once saved, in the future when only validated. */
function migrationNotes(migrated: Migration['migrated'], tense: 'past' | 'future'): TransformationProblem[] {
  return migrated.map((m) => {
    const what = m.to === '' ? 'no constant values (no argument follows it in its calls)' : m.to;
    return {
      code: 'MIGRATED_THIS_ARG',
      message:
        tense === 'past'
          ? `function "${m.function}" received thisArg, as older releases wrote it; it receives ${what} now`
          : `function "${m.function}" receives thisArg, as older releases wrote it; it will receive ${what}`,
      path: '/functions',
    };
  });
}

/**
 * Migrates (older `thisArg` callbacks become `constantValueN`) and checks a submitted document. A
 * migration is reported as a warning, so the client sees what changed; what the migration cannot
 * translate exactly is an error.
 */
export function checkTransformation(input: TransformationInput): TransformationCheck {
  const { doc, migrated, errors: untranslatable } = migrateTransformation(input);
  const { errors, warnings } = compileTransformation(doc);
  // checked when a document is submitted, not when a stored one runs: documents stored before still run
  const members = checkSchemaMembers(input);
  return {
    doc: parseAs(transformationInputSchema, doc, 'transformation'),
    errors: [...untranslatable, ...members.errors, ...errors],
    warnings: [...migrationNotes(migrated, 'past'), ...members.warnings, ...warnings],
  };
}

/**
 * The submitted document as a runnable transformation: 400 VALIDATION_FAILED when it is not a
 * transformation document at all, 400 TRANSFORMATION_INVALID (details: every problem with its path)
 * when a step cannot run.
 */
export function acceptTransformation(input: unknown, member: string): Omit<TransformationCheck, 'errors'> {
  const parsed = checked('transformation', input, () => parseAs(transformationInputSchema, input, member));
  const { doc, errors, warnings } = checkTransformation(parsed);
  if (errors.length > 0) throw invalidTransformation(doc.name, errors);
  return { doc, warnings };
}

/** Every problem of a document, without saving it (`POST /transformations/validate`). */
export function validateTransformationDocument(input: Record<string, unknown>): ResponseOf<'studio.validateTransformation'> {
  const { doc, migrated, errors: untranslatable } = migrateTransformation(input);
  const { errors, warnings } = compileTransformation(doc);
  const members = checkSchemaMembers(input);
  const all = [...untranslatable, ...members.errors, ...errors];
  return { isValid: all.length === 0, errors: all, warnings: [...migrationNotes(migrated, 'future'), ...members.warnings, ...warnings] };
}

/** The stored document: the (migrated) submitted members, defaults, the id and the camel-case audit fields. */
export function toStoredTransformation(input: TransformationInput, id: string, stamp: SaveStamp, original?: OriginalStamp): Transformation {
  const rest = withoutCamelStamp(input);
  return {
    description: '',
    incoming: [],
    outgoing: [],
    steps: [],
    functions: [],
    comments: [],
    tags: [],
    ...rest,
    ...camelStamp(id, stamp, original),
  };
}

/** Settings of the runner. */
export interface TransformationRunnerOptions {
  regex: RegexRunner;
  limits?: Partial<RunLimits>;
  /** Compiled plans kept in memory; default 500. */
  cacheSize?: number;
}

/**
 * Runs stored transformations: compiles each document once (kept by id while its `lastUpdated`
 * stays the same), checks incoming values with Ajv when asked, and runs the plan.
 */
export class TransformationRunner {
  private readonly plans = new Map<string, { stamp: string; plan: TransformationPlan }>();
  /** Incoming schemas without their `$id` (the variable name, which would clash between documents), by the stored schema. */
  private readonly schemas = new WeakMap<object, JsonSchema>();
  private readonly cacheSize: number;
  private readonly validate: IncomingValidator;

  constructor(private readonly options: TransformationRunnerOptions) {
    this.cacheSize = options.cacheSize ?? 500;
    this.validate = (schema, value) => {
      let compiled = this.schemas.get(schema);
      if (compiled === undefined) {
        const { $id: _id, $schema: _dialect, ...rest } = schema;
        compiled = rest;
        this.schemas.set(schema, compiled);
      }
      // the platform's validator fills defaults in: check a copy, the run gets the value as given
      const problems = validateAgainst(compiled, structuredClone(value), 'value');
      return problems.length === 0 ? undefined : problems.map((p) => p.message.replace(/^value ?/, '')).join('; ');
    };
  }

  /** The compiled plan of a stored document; 400 TRANSFORMATION_INVALID if it cannot run (stored by an older release of the checks). */
  plan(doc: Transformation): TransformationPlan {
    const cached = this.plans.get(doc._id);
    if (cached !== undefined && cached.stamp === doc.lastUpdated) return cached.plan;
    const { doc: migrated, errors } = migrateTransformation(doc);
    const result = compileTransformation(migrated);
    if (errors.length > 0 || result.plan === undefined) throw invalidTransformation(doc.name, [...errors, ...result.errors]);
    if (this.plans.size >= this.cacheSize) {
      const oldest = this.plans.keys().next().value;
      if (oldest !== undefined) this.plans.delete(oldest);
    }
    this.plans.set(doc._id, { stamp: doc.lastUpdated, plan: result.plan });
    return result.plan;
  }

  /** Runs `doc` on `incoming`; answers the result as JSON data (see runTransformationPlan). */
  run(doc: Transformation, incoming: Record<string, unknown>, options: TransformationRunOptions = {}): unknown {
    return runTransformationPlan(this.plan(doc), incoming, options, {
      regex: this.options.regex,
      validateIncoming: this.validate,
      ...(this.options.limits ? { limits: this.options.limits } : {}),
    });
  }

  /** Forgets the plan of a changed or deleted document. */
  forget(id: string): void {
    this.plans.delete(id);
  }
}
