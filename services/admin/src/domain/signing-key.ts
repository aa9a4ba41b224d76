import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { AppError } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import type { KeyRecord } from '../store/signing-keys';

/** The key tokens are signed with, opened. */
export interface SigningKey {
  kid: string;
  key: KeyObject;
  publicKeyPem: string;
}

/** A new Ed25519 key pair as stored: the private half sealed. */
export function newSigningKeyRecord(secrets: SecretBox, now: string): Omit<KeyRecord, '_id'> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    kid: randomUUID(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeySealed: secrets.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
    created: now,
  };
}

/** The stored key opened; 500 when `NAP_SECRET_KEY` is not the one it was sealed with. */
export function openSigningKey(record: KeyRecord, secrets: SecretBox): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(secrets.open(record.privateKeySealed));
  } catch (err) {
    throw new AppError('INTERNAL', 'The token signing key cannot be opened: NAP_SECRET_KEY differs from the one it was sealed with', {
      cause: err,
    });
  }
  return { kid: record.kid, key, publicKeyPem: record.publicKeyPem };
}
