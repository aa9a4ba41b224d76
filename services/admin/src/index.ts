export { createAdminService } from './service';
export type { AdminServiceOptions } from './service';
export { auditChainStores } from './store/audit-chain-move';
export type { AuditChainStores } from './store/audit-chain-move';
