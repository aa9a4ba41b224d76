export { createOrchProxyService } from './service';
