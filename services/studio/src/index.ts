export { createStudioService } from './service';
