import { AppError, isAppError } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import type { StepRef } from './errors';
import { LimitError, MethodError, invalidTransformation, limitExceeded, stepFailed } from './errors';
import type { ArgAssign, Gate, NodeContext, NodePlan, OutAssign, ScopePlan, Source, TransformationPlan } from './plan';
import type { RegexOp, RegexRunner } from './regex';
import type { Obj } from './values';
import { getIn, isPlainObject, member, setIn } from './values';

/** Bounds of one run; see {@link DEFAULT_LIMITS}. */
export interface RunLimits {
  /** Steps a run may execute, counting every step of every callback and function call. */
  maxSteps: number;
  /** Longest a run may take, in ms (checked between steps; a regular expression has its own limit). */
  timeoutMs: number;
  /** Largest answer, in characters of its JSON text. */
  maxOutputChars: number;
  /** Largest array (elements) or string (characters) a step may make. */
  maxValueLength: number;
  /**
   * Largest value a step may be given or make, counted as its JSON would be written: every array
   * element, object member and string character, through every reference (an array of 1,000
   * references to one array of 1,000 elements counts 1,001,000).
   */
  maxValueSize: number;
  /** Deepest nesting of user function calls. */
  maxCallDepth: number;
}

export const DEFAULT_LIMITS: RunLimits = {
  maxSteps: 1_000_000,
  timeoutMs: 5_000,
  maxOutputChars: 8 * 1024 * 1024,
  maxValueLength: 1_000_000,
  maxValueSize: 32 * 1024 * 1024,
  maxCallDepth: 64,
};

/** Options of a run, as the original platform names them. */
export interface RunOptions {
  extractOutput?: boolean;
  validateIncoming?: boolean;
  revertToDefaultValue?: boolean;
}

/** Checks one incoming value against its schema: undefined when it matches, else what is wrong. */
export type IncomingValidator = (schema: Obj, value: unknown) => string | undefined;

export interface RunDeps {
  regex: RegexRunner;
  limits?: Partial<RunLimits>;
  /** Needed for `validateIncoming`. */
  validateIncoming?: IncomingValidator;
}

const DONE = 1;
const SKIPPED = 2;

/**
 * The size of values as {@link RunLimits.maxValueSize} counts it. Values inside a run are never
 * changed (library methods answer copies), so the size of each array, object and Set is worked out
 * once and kept: a step that shares what earlier steps made costs only its new containers.
 */
class ValueSizes {
  private readonly known = new WeakMap<object, number>();

  constructor(private readonly limit: number) {}

  /** The size of `value`; throws LimitError as soon as it passes the limit (the rest is not walked). */
  measure(value: unknown): number {
    if (typeof value === 'string') return this.check(value.length + 1);
    if (typeof value !== 'object' || value === null) return 1;
    const known = this.known.get(value);
    if (known !== undefined) return known;
    let size = 1;
    const add = (item: unknown): void => {
      size = this.check(size + this.measure(item));
    };
    if (Array.isArray(value)) for (const item of value) add(item);
    else if (value instanceof Set) for (const item of value) add(item);
    else if (isPlainObject(value))
      for (const key of Object.keys(value)) {
        add(key);
        add(value[key]);
      }
    this.known.set(value, size);
    return size;
  }

  private check(size: number): number {
    if (size > this.limit)
      throw new LimitError(
        `a value is larger than the limit of ${this.limit} elements, members and characters (counted through every reference)`,
      );
    return size;
  }
}

class Run implements NodeContext {
  private steps = 0;
  private depth = 0;
  private readonly deadline: number;
  private current: StepRef | undefined;
  readonly sizes: ValueSizes;

  constructor(
    private readonly plan: TransformationPlan,
    private readonly regexRunner: RegexRunner,
    private readonly limits: RunLimits,
  ) {
    this.deadline = Date.now() + limits.timeoutMs;
    this.sizes = new ValueSizes(limits.maxValueSize);
  }

  callFunction(id: string, args: readonly unknown[]): Obj {
    return this.callScope(this.functionScope(id), args);
  }

  callback(id: unknown, args: unknown[]): unknown {
    const scope = this.functionScope(id);
    const out = this.callScope(scope, args);
    const first = scope.outgoingIds[0];
    return first === undefined ? undefined : out[first];
  }

  regex(op: RegexOp): unknown {
    const value = this.regexRunner.run(op);
    // an operation may take up to the runner's own limit (a second): the run's time is checked after
    // each, not only every 128 steps, or 128 slow ones in a row would hold the thread for minutes
    if (Date.now() > this.deadline) throw new LimitError(`the run took longer than ${this.limits.timeoutMs} ms`);
    return value;
  }

  grow(n: number): void {
    if (n > this.limits.maxValueLength)
      throw new LimitError(`a value of ${n} elements or characters is larger than the limit of ${this.limits.maxValueLength}`);
  }

  /** Runs the document's scope on the incoming values by $id; answers the outgoing values by $id. */
  runRoot(incoming: Obj): Obj {
    return this.runScope(this.plan.root, incoming);
  }

  private functionScope(id: unknown): ScopePlan {
    const scope = typeof id === 'string' ? this.plan.functions.get(id) : undefined;
    if (scope === undefined)
      throw new MethodError(
        id === undefined ? 'no callback function is given' : `there is no function "${String(id)}" in the functions table`,
      );
    return scope;
  }

  private callScope(scope: ScopePlan, args: readonly unknown[]): Obj {
    if (this.depth >= this.limits.maxCallDepth)
      throw new LimitError(`functions call each other more than ${this.limits.maxCallDepth} deep`);
    const inputs: Obj = {};
    scope.incomingIds.forEach((id, i) => {
      inputs[id] = args[i];
    });
    const caller = this.current;
    this.depth += 1;
    try {
      return this.runScope(scope, inputs);
    } finally {
      this.depth -= 1;
      this.current = caller;
    }
  }

  private tick(ref: StepRef): void {
    this.steps += 1;
    if (this.steps > this.limits.maxSteps) throw limitExceeded(ref, `The run went past its budget of ${this.limits.maxSteps} steps`);
    if ((this.steps & 127) === 0 && Date.now() > this.deadline)
      throw limitExceeded(ref, `The run took longer than ${this.limits.timeoutMs} ms`);
  }

  private runScope(scope: ScopePlan, inputs: Obj): Obj {
    const n = scope.nodes.length;
    const values: unknown[] = new Array<unknown>(n);
    const state = new Uint8Array(n); // 0 not run yet, DONE, SKIPPED
    let out: Obj = {};
    const read = (source: Source): unknown =>
      source.node < 0 ? getIn(member(inputs, source.name), source.tokens) : getIn(values[source.node], source.tokens);
    const gatesOpen = (gates: readonly Gate[]): boolean => {
      for (const g of gates) {
        if (state[g.node] !== DONE || member(values[g.node], `case_${g.case}`) !== true) return false;
      }
      return true;
    };
    const available = (a: ArgAssign | OutAssign): boolean => (a.source.node < 0 || state[a.source.node] === DONE) && gatesOpen(a.gates);
    const applyOut = (assigns: readonly OutAssign[]): void => {
      for (const a of assigns) {
        if (!available(a)) continue;
        const value = read(a.source);
        out = a.tokens.length === 0 ? { ...out, [a.name]: value } : { ...out, [a.name]: setIn(out[a.name], a.tokens, value) };
      }
    };

    applyOut(scope.start);
    for (let i = 0; i < n; i += 1) {
      const node = scope.nodes[i] as NodePlan;
      if (!gatesOpen(node.gates)) {
        state[i] = SKIPPED;
        continue;
      }
      const args = node.staticArgs.slice();
      let ready = true;
      for (const a of node.assigns) {
        if (!available(a)) {
          ready = false;
          break;
        }
        if (a.index < 0) continue;
        const value = read(a.source);
        args[a.index] = a.tokens.length === 0 ? value : setIn(args[a.index], a.tokens, value);
      }
      if (!ready) {
        state[i] = SKIPPED;
        continue;
      }
      this.current = node.ref;
      this.tick(node.ref);
      values[i] = this.execute(node, args);
      state[i] = DONE;
      if (node.after.length > 0) applyOut(node.after);
    }
    return out;
  }

  private execute(node: NodePlan, args: unknown[]): unknown {
    try {
      // what assignments put together (one value at many places) is bounded before a method walks it
      for (const a of args) this.sizes.measure(a);
      const value = node.invoke(args, this);
      if (typeof value === 'string' || Array.isArray(value)) this.grow(value.length);
      this.sizes.measure(value);
      return value;
    } catch (err) {
      if (isAppError(err)) throw err;
      if (err instanceof LimitError) throw limitExceeded(node.ref, `The run was stopped: ${err.message}`);
      if (err instanceof MethodError) throw stepFailed(node.ref, err.message, err);
      // a JavaScript error of a library method on odd values (RangeError: Invalid array length, …)
      throw stepFailed(node.ref, errorMessage(err), err);
    }
  }
}

function defaultOf(schema: Obj | undefined): unknown {
  return schema !== undefined && Object.hasOwn(schema, 'default') ? structuredClone(schema.default) : undefined;
}

/**
 * Runs a compiled transformation on `incoming` (values by incoming $id). Answers the result as JSON
 * data: an object keyed by outgoing $id in the order of the outgoing schemas (members nothing was
 * assigned to are left out), or with `extractOutput` and one outgoing schema its bare value (null
 * when unassigned). Throws AppError: TRANSFORMATION_INCOMING_INVALID, TRANSFORMATION_STEP_FAILED,
 * TRANSFORMATION_LIMIT_EXCEEDED, and TRANSFORMATION_INVALID when an incoming schema cannot be compiled to check a value.
 */
export function runTransformationPlan(plan: TransformationPlan, incoming: Obj, options: RunOptions, deps: RunDeps): unknown {
  const limits: RunLimits = { ...DEFAULT_LIMITS, ...(deps.limits ?? {}) };
  const root = plan.root;
  const inputs: Obj = {};
  for (const [i, id] of root.incomingIds.entries()) {
    let value = Object.hasOwn(incoming, id) ? incoming[id] : undefined;
    if (value === undefined && options.revertToDefaultValue === true) value = defaultOf(root.incomingSchemas[i]);
    if (options.validateIncoming === true && value !== undefined && deps.validateIncoming) {
      let problem: string | undefined;
      try {
        problem = deps.validateIncoming(root.incomingSchemas[i] as Obj, value);
      } catch (err) {
        // a schema that cannot be compiled (a $ref to nothing, a pattern JavaScript refuses) is the document's fault, not the run's
        throw invalidTransformation(plan.name, [
          {
            code: 'INCOMING_SCHEMA_INVALID',
            message: `the schema of incoming "${id}" cannot check a value (${errorMessage(err)}); correct it, or run without validateIncoming`,
            path: `/incoming/${i}`,
          },
        ]);
      }
      if (problem !== undefined) {
        throw new AppError('TRANSFORMATION_INCOMING_INVALID', `Incoming "${id}" of transformation "${plan.name}" ${problem}`, {
          details: [{ member: `incoming.${id}`, message: problem }],
        });
      }
    }
    inputs[id] = value;
  }
  const run = new Run(plan, deps.regex, limits);
  let out: Obj;
  try {
    out = run.runRoot(inputs);
  } catch (err) {
    throw withMissingIncoming(
      err,
      root.incomingIds.filter((id) => inputs[id] === undefined),
    );
  }
  const result: Obj = {};
  for (const [i, id] of root.outgoingIds.entries()) {
    let value = out[id];
    if (value === undefined && options.revertToDefaultValue === true) value = defaultOf(root.outgoingSchemas[i]);
    if (value !== undefined) result[id] = value;
  }
  let text: string;
  try {
    // the same value assigned to many outgoing places is written out in full each time
    run.sizes.measure(result);
  } catch (err) {
    throw err instanceof LimitError
      ? limitExceeded(undefined, `The result of transformation "${plan.name}" is too large: ${err.message}`)
      : limitExceeded(undefined, `The result of transformation "${plan.name}" cannot be written as JSON: ${errorMessage(err)}`);
  }
  try {
    text = JSON.stringify(result);
  } catch (err) {
    throw limitExceeded(undefined, `The result of transformation "${plan.name}" cannot be written as JSON: ${errorMessage(err)}`);
  }
  if (text.length > limits.maxOutputChars)
    throw limitExceeded(
      undefined,
      `The result of transformation "${plan.name}" is ${text.length} characters of JSON, more than the limit of ${limits.maxOutputChars}`,
    );
  const data: unknown = JSON.parse(text);
  const only = root.outgoingIds[0];
  if (options.extractOutput === true && root.outgoingIds.length === 1 && only !== undefined) {
    return isPlainObject(data) && Object.hasOwn(data, only) ? data[only] : null;
  }
  return data;
}

/**
 * A failed step's error saying which incoming values the run was not given (`incoming "site" was
 * not given`, and `details.missingIncoming`): the step that reads one fails on `undefined`, far from
 * the cause. Any other error, or a run given every incoming value, as it is.
 */
function withMissingIncoming(err: unknown, missing: string[]): unknown {
  if (missing.length === 0 || !isAppError(err) || err.code !== 'TRANSFORMATION_STEP_FAILED') return err;
  const names = missing.map((id) => `"${id}"`).join(', ');
  const said = missing.length === 1 ? `incoming ${names} was not given` : `incoming ${names} were not given`;
  const details = isPlainObject(err.details) ? err.details : {};
  return new AppError(err.code, `${err.message} (${said})`, { details: { ...details, missingIncoming: missing }, cause: err.cause });
}
