import type { GatewayCollections } from './collections';
import type { InventoryRepository, NestedSecretsScan } from './inventory-repository';

/**
 * The sealing of secrets nested in device variables (`gw_http_headers.Authorization`,
 * `creds.password`), which versions before such secrets were sealed stored in clear. Raise
 * `version` when a later release must scan the inventory again (a new kind of nested secret).
 */
export const SEAL_NESTED_SECRETS = { id: 'seal-nested-secrets', version: 1 } as const;

/** What {@link sealNestedSecretsOnce} did: nothing (`ran: false`, the marker says it is done), or a scan. */
export type SealNestedSecretsOutcome = { ran: false } | ({ ran: true; recorded: boolean } & NestedSecretsScan);

/**
 * Seals the clear nested secrets of the inventory once, at start: unless the store's marker
 * (`migrations` document `seal-nested-secrets`) says this version of the migration is done, scans
 * the inventory ({@link InventoryRepository.scanNestedSecrets}) and records the marker, so that later
 * starts read one document instead of every device. A scan that left a device because it changed
 * while the scan ran records nothing: the next start scans again. Replicas starting together may
 * both scan; the sealing of each device is guarded, so each is sealed once.
 */
export async function sealNestedSecretsOnce(c: GatewayCollections, inventory: InventoryRepository): Promise<SealNestedSecretsOutcome> {
  const marker = await c.migrations.findOne({ _id: SEAL_NESTED_SECRETS.id });
  if (marker !== null && marker.version >= SEAL_NESTED_SECRETS.version) return { ran: false };
  const scan = await inventory.scanNestedSecrets();
  if (scan.changedMeanwhile > 0) return { ran: true, recorded: false, ...scan };
  // never lowers a version that a newer replica recorded meanwhile
  await c.migrations.updateOne(
    { _id: SEAL_NESTED_SECRETS.id },
    { $max: { version: SEAL_NESTED_SECRETS.version }, $set: { completed: new Date().toISOString(), changed: scan.sealed } },
    { upsert: true },
  );
  return { ran: true, recorded: true, ...scan };
}
