import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { signToken } from '@nap/contracts';
import { createBusClient, createMemoryBus, serve } from '@nap/bus';
import { createLogger } from '@nap/telemetry';
import { Authenticator } from '../src/auth/authenticator';

describe('Authenticator while the admin service does not answer', () => {
  it('answers 503 for a well-formed token every time, never 401 as if it were forged', async () => {
    const bus = createMemoryBus();
    const auth = new Authenticator({ bus, client: createBusClient({ bus }), logger: createLogger({ name: 'auth-test', level: 'silent' }) });
    const { privateKey } = generateKeyPairSync('ed25519');
    const now = Math.floor(Date.now() / 1000);
    const token = signToken({ sid: randomUUID(), sub: randomUUID(), iat: now, exp: now + 3600, kid: randomUUID() }, privateKey);
    // the second attempt falls inside the one-second window in which keys are not fetched again
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(auth.authenticate({ kind: 'token', token })).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    }
    await bus.close();
  });
});

describe('Authenticator over many sessions', () => {
  it('keeps at most maxCachedIdentities resolved sessions: a gateway does not hold every session it ever saw', async () => {
    const bus = createMemoryBus();
    const logger = createLogger({ name: 'auth-test', level: 'silent' });
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const kid = randomUUID();
    const resolved: string[] = [];
    // an admin replica that answers the two calls the gateway makes: its token keys, and who a session is
    const admin = await serve({
      bus,
      service: 'admin',
      version: '0.0.1',
      logger,
      handlers: {
        getTokenKeys: async () => ({ keys: [{ kid, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() }] }),
        resolveSession: async (input) => {
          resolved.push(input.body.sid);
          return { id: 'account-1', username: 'many-sessions', roles: ['apiread' as const], groups: [], sid: input.body.sid };
        },
      },
    });
    const auth = new Authenticator({ bus, client: createBusClient({ bus }), logger, maxCachedIdentities: 50 });
    try {
      const now = Math.floor(Date.now() / 1000);
      const tokens = Array.from({ length: 120 }, () =>
        signToken({ sid: randomUUID(), sub: 'account-1', iat: now, exp: now + 3600, kid }, privateKey),
      );
      for (const token of tokens) await expect(auth.authenticate({ kind: 'token', token })).resolves.toMatchObject({ id: 'account-1' });
      expect(resolved).toHaveLength(120);
      // the last ones are still remembered (a full cache lets its oldest tenth go, not everything); the first was let go and is resolved again
      for (const token of tokens.slice(-40)) await auth.authenticate({ kind: 'token', token });
      expect(resolved).toHaveLength(120);
      await auth.authenticate({ kind: 'token', token: tokens[0] ?? '' });
      expect(resolved).toHaveLength(121);
    } finally {
      await admin.stop();
      await bus.close();
    }
  });
});
