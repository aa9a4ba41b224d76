export { createAdminService } from './service';
export type { AdminServiceOptions } from './service';
export { hashPassword, verifyPassword } from './domain/password';
