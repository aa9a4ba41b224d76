export { createStudioService } from './service';
export { validateWorkflow, isValidTaskId, WORKFLOW_ERRORS, WORKFLOW_WARNINGS } from './domain/workflow-validation';
export type { WorkflowCheck, WorkflowErrorCode, WorkflowWarningCode } from './domain/workflow-validation';
export { compileTransformation, createInlineRegexRunner, migrateTransformation, runTransformationPlan, methodNames } from './jst';
export type { RunLimits, RunOptions, TransformationPlan } from './jst';
