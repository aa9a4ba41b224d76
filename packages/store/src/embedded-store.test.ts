import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStore, runStoreContractSuite, type EmbeddedStore, type Store } from './index';

runStoreContractSuite('EmbeddedStore contract', async () => {
  const root = mkdtempSync(join(tmpdir(), 'nap-store-contract-'));
  let n = 0;
  return {
    open: async () => createEmbeddedStore({ path: join(root, `db-${n++}`) }),
    reopen: async (store: Store) => createEmbeddedStore({ path: (store as EmbeddedStore).path }),
    dispose: async () => rmSync(root, { recursive: true, force: true }),
  };
});
