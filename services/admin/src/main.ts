import { runServiceProcess } from '@nap/runtime';
import { createAdminService } from './service';
import { auditChainStores } from './store/audit-chain-move';

// on embedded stores the audit chain has a store of its own, as in the standalone (see auditChainStores)
runServiceProcess('admin', (deps) => {
  const auditChain = auditChainStores(deps.config);
  return createAdminService(deps, auditChain ? { auditChain } : {});
}).catch((err: unknown) => {
  process.stderr.write(`nap-admin failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
