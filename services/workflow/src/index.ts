export { createWorkflowService, WORKFLOW_WAKE_SUBJECT } from './service';
export type { WorkflowServiceOptions } from './service';
export { JobEngine, NO_TRANSITION_MESSAGE, APP_SERVICES } from './domain/engine';
export type { EngineDeps, EngineOptions } from './domain/engine';
export type { JobRecord } from './domain/job-model';
export { BUILTINS, MANUAL_BUILTINS } from './domain/builtins';
