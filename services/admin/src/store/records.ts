import type { Role } from '@nap/contracts';

export interface AccountRecord {
  _id: string;
  [key: string]: unknown;
  username: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  groups: string[];
  inactive: boolean;
  passwordHash: string;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

export interface GroupRecord {
  _id: string;
  [key: string]: unknown;
  name: string;
  description: string;
  roles: Role[];
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

export interface SessionRecord {
  _id: string;
  [key: string]: unknown;
  accountId: string;
  username: string;
  /** How the session began: `login`, `oauth`. */
  method: string;
  created: string;
  /** Epoch ms. */
  expiresAt: number;
  revoked: boolean;
}

export interface KeyRecord {
  _id: string;
  [key: string]: unknown;
  kid: string;
  publicKeyPem: string;
  /** PKCS#8 PEM sealed with the secret box; never stored in clear. */
  privateKeySealed: string;
  created: string;
}

/** An account as the interface returns it: no password hash, ever; roles resolved from its groups. */
export interface AccountView {
  _id: string;
  username: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  groups: string[];
  roles: Role[];
  inactive: boolean;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}
