export { createAdminService } from './service';
export type { AdminServiceOptions } from './service';
