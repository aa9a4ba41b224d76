import type { Collection, Doc, IndexSpec, Store } from '@nap/store';

/** Collections of the gateway-devices service. */
export const COLLECTIONS = {
  devices: 'devices',
  deviceGroups: 'device_groups',
  knownHosts: 'known_hosts',
  configBackups: 'config_backups',
  deviceTemplates: 'device_templates',
  migrations: 'migrations',
} as const;

/** An inventory device as stored: secrets sealed apart from the plain variables. */
export interface DeviceDoc extends Doc {
  name: string;
  /** Non-secret variables; an object or array holding secrets is here with those secrets masked. */
  variables: Record<string, unknown>;
  /** Secret variables, each sealed with the service secret box. */
  secrets: Record<string, string>;
  /**
   * Variables whose object or array value holds secrets (`gw_http_headers.Authorization`): the whole
   * value as JSON, sealed; `variables` has it masked. Absent on devices that have none.
   */
  nestedSecrets?: Record<string, string>;
  groups: string[];
  created: string;
  updated: string;
  createdBy: string;
  updatedBy: string;
}

/** Metadata of a device group; membership lives on the devices (`groups`). */
export interface DeviceGroupDoc extends Doc {
  name: string;
  description: string;
  created: string;
  updated: string;
  createdBy: string;
  updatedBy: string;
}

/** A trusted SSH host key. `_id` is `host:port`. */
export interface KnownHostDoc extends Doc {
  fingerprint: string;
  created: string;
  /** The trusted key blob, base64 (kept since the platform writes known_hosts files for Ansible). */
  key?: string;
}

/** A configuration backup of a device. */
export interface ConfigBackupDoc extends Doc {
  device: string;
  created: string;
  reason: string;
  config: string;
  createdBy: string;
}

/** A device template of the configuration manager; `_id` is its id. */
export interface DeviceTemplateDoc extends Doc {
  name: string;
  template: string;
  variables: Record<string, unknown>;
  created: string;
  updated: string;
  createdBy: string;
  updatedBy: string;
  gbac: { read: string[]; write: string[] };
}

/**
 * The record that a start-time migration of the stored data is done: `_id` names the migration, and
 * `version` is the version of it that ran (a later version of the service that needs the data
 * migrated again raises the version it wants, and runs it once more).
 */
export interface MigrationDoc extends Doc {
  version: number;
  /** ISO time the migration finished. */
  completed: string;
  /** Documents it changed. */
  changed: number;
}

/** Typed handles on the service's collections. */
export interface GatewayCollections {
  devices: Collection<DeviceDoc>;
  deviceGroups: Collection<DeviceGroupDoc>;
  knownHosts: Collection<KnownHostDoc>;
  configBackups: Collection<ConfigBackupDoc>;
  deviceTemplates: Collection<DeviceTemplateDoc>;
  migrations: Collection<MigrationDoc>;
}

/** Opens the collections. */
export function gatewayCollections(store: Store): GatewayCollections {
  return {
    devices: store.collection<DeviceDoc>(COLLECTIONS.devices),
    deviceGroups: store.collection<DeviceGroupDoc>(COLLECTIONS.deviceGroups),
    knownHosts: store.collection<KnownHostDoc>(COLLECTIONS.knownHosts),
    configBackups: store.collection<ConfigBackupDoc>(COLLECTIONS.configBackups),
    deviceTemplates: store.collection<DeviceTemplateDoc>(COLLECTIONS.deviceTemplates),
    migrations: store.collection<MigrationDoc>(COLLECTIONS.migrations),
  };
}

/** The indexes of the service's collections, by collection name (listed by `/indexes`). */
export const GATEWAY_INDEXES = {
  // gw_session_limit: the start primes the session limiter from the devices that set one, and reads no other
  [COLLECTIONS.devices]: [{ keys: { name: 1 }, unique: true }, { keys: { groups: 1 } }, { keys: { 'variables.gw_session_limit': 1 } }],
  [COLLECTIONS.deviceGroups]: [{ keys: { name: 1 }, unique: true }],
  [COLLECTIONS.configBackups]: [{ keys: { device: 1, created: -1 } }],
  [COLLECTIONS.deviceTemplates]: [{ keys: { name: 1 }, unique: true }],
} as const satisfies Record<string, readonly IndexSpec[]>;

/** Creates the indexes (idempotent). */
export async function ensureCollections(store: Store): Promise<void> {
  for (const [name, indexes] of Object.entries(GATEWAY_INDEXES)) {
    await store.collection(name).createIndexes(indexes.map((spec) => ({ ...spec, keys: { ...spec.keys } })));
  }
}
