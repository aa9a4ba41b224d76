import type { IndexSpec, Store } from '@nap/store';

/** Collections of the admin service and their indexes, created at start. */
export const ADMIN_COLLECTIONS = {
  // usernameKey / nameKey: the name in lower case, which the lists sort by (letter case aside, on both stores)
  accounts: [{ keys: { username: 1 }, unique: true }, { keys: { groups: 1 } }, { keys: { usernameKey: 1, username: 1, _id: 1 } }],
  groups: [
    { keys: { name: 1 }, unique: true },
    { keys: { provenance: 1, externalName: 1 } },
    { keys: { nameKey: 1, name: 1, _id: 1 } },
    { keys: { 'assignedRoles.roleId': 1 } },
  ],
  // custom roles: nameKey (the name in lower case) unique, so that names differ in more than letter case
  roles: [{ keys: { nameKey: 1 }, unique: true }],
  sessions: [{ keys: { accountId: 1 } }, { keys: { expiresAt: 1 } }],
  login_attempts: [{ keys: { expiresAt: 1 } }],
  keys: [],
  integration_models: [{ keys: { app: 1 } }],
  integration_model_sources: [],
  integrations: [{ keys: { model: 1 } }],
  adapters: [{ keys: { state: 1 } }],
  external_links: [{ keys: { name: 1 }, unique: true }],
  prebuilts: [{ keys: { 'metadata.name': 1 }, unique: true }],
  // the audit trail: _id is the zero-padded seq (chain order); entryId keeps an entry once
  audit_records: [
    { keys: { entryId: 1 }, unique: true },
    { keys: { timestamp: 1 } },
    { keys: { 'actor.username': 1 } },
    { keys: { operation: 1 } },
    { keys: { 'target.id': 1 } },
    { keys: { 'outcome.status': 1 } },
  ],
  audit_meta: [],
  // claims that serialise changes across replicas (keeping an administrator, models in use): _id is the claim's name
  change_claims: [],
  // browser sign-ins under way (OIDC, SAML) and SAML assertion ids seen: _id is the state, the id
  browser_sign_ins: [{ keys: { expiresAt: 1 } }],
  seen_assertions: [{ keys: { expiresAt: 1 } }],
} as const satisfies Record<string, readonly IndexSpec[]>;

export async function ensureCollections(store: Store): Promise<void> {
  for (const [name, indexes] of Object.entries(ADMIN_COLLECTIONS)) {
    if (indexes.length > 0) await store.collection(name).createIndexes(indexes.map((spec) => ({ ...spec, keys: { ...spec.keys } })));
  }
}
