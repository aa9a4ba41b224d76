export { createWorkflowService } from './service';
