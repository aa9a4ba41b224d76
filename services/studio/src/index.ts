export { createStudioService } from './service';
export type { StudioServiceOptions } from './service';
export { createTemplateRenderer, loadTemplateRendererConfig, templatingProblem, TEMPLATE_WORKER_SCRIPT } from './clients/template-renderer';
export type { TemplateRenderer, TemplateRendererConfig } from './clients/template-renderer';
export { validateWorkflow, isValidTaskId, WORKFLOW_ERRORS, WORKFLOW_WARNINGS } from './domain/workflow-validation';
export type { WorkflowCheck, WorkflowErrorCode, WorkflowWarningCode } from './domain/workflow-validation';
export { compileTransformation, createInlineRegexRunner, migrateTransformation, runTransformationPlan, methodNames } from './domain/jst';
export type { RunLimits, RunOptions, TransformationPlan } from './domain/jst';
