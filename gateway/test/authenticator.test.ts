import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { signToken } from '@nap/contracts';
import { createBusClient, createMemoryBus } from '@nap/bus';
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
