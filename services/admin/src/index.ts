export { createAdminService } from './service';
export type { AdminServiceOptions } from './service';
export { AdminDomain } from './domain/admin';
export { hashPassword, verifyPassword } from './domain/password';
