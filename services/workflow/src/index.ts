export { createWorkflowService } from './service';
export type { WorkflowServiceOptions } from './service';
export { JobEngine } from './engine/job-engine';
export type { EngineDeps, EngineOptions } from './engine/job-engine';
export type { StartJobInput } from './engine/job-lifecycle';
export { NO_TRANSITION_MESSAGE } from './domain/job-model';
export type { JobRecord } from './domain/job-model';
export { APP_SERVICES } from './domain/task-routing';
export { BUILTINS, MANUAL_BUILTINS } from './domain/builtins';
