/**
 * The JST engine: JSON Schema Transformations checked, compiled and run in process. Pure logic; the
 * service owns the store, the compiled-plan cache and the regular expression worker
 * (`clients/regex-worker.ts`), which runs {@link runRegexOp} with a time limit.
 */
export { compileTransformation } from './compile';
export type { CompileResult } from './compile';
export { LimitError, MethodError, invalidTransformation } from './errors';
export { methodNames } from './library';
export { migrateTransformation } from './migrate';
export type { Migration } from './migrate';
export type { TransformationPlan } from './plan';
export { createInlineRegexRunner, runRegexOp } from './regex';
export { checkSchemaMembers } from './schema-members';
export type { RegexOp, RegexRunner } from './regex';
export { DEFAULT_LIMITS, runTransformationPlan } from './run';
export type { IncomingValidator, RunDeps, RunLimits, RunOptions } from './run';
