export { createMopService } from './service';
