import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { ADDRESS_REFUSED, createGuardedLookup, refusedLiteralAddress } from './network-addresses';
import type { Resolver } from './network-addresses';

/** A resolver of names ending in .test: `metadata.test` is the cloud metadata address, any other 127.0.0.1. */
const fakeDns: Resolver = (hostname, options, callback) => {
  const address = hostname === 'metadata.test' ? '169.254.169.254' : '127.0.0.1';
  if (options.all === true) callback(null, [{ address, family: 4 }]);
  else callback(null, address, 4);
};

describe('addresses requests made for users never reach', () => {
  it("refuses link-local and unspecified addresses written out, in every form, and nothing else (a name is the lookup's to check)", () => {
    const refused = (url: string) => refusedLiteralAddress(new URL(url));
    for (const url of [
      'http://169.254.169.254/',
      'http://[fd00:ec2::254]/',
      'http://[::ffff:169.254.169.254]/',
      'http://0.0.0.0/',
      'http://[fe80::1]/',
    ])
      expect({ url, refused: refused(url) }).toEqual({ url, refused: expect.any(String) });
    for (const url of ['http://127.0.0.1/', 'http://10.1.2.3/', 'http://[::1]/', 'http://192.168.0.1/', 'http://metadata.test/'])
      expect({ url, refused: refused(url) }).toEqual({ url, refused: undefined });
  });

  it('checks the address the connection itself resolves, so a name that changes its answer reaches nothing refused', async () => {
    const server = http.createServer((_req, res) => res.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ connect: { lookup: createGuardedLookup(fakeDns) } });
    try {
      const ok = await fetch(`http://fine.test:${port}/`, { dispatcher: agent });
      expect(await ok.text()).toBe('hello');
      const err = (await fetch(`http://metadata.test:${port}/`, { dispatcher: agent }).catch((e: unknown) => e)) as Error;
      expect((err.cause as NodeJS.ErrnoException).code).toBe(ADDRESS_REFUSED);
      expect((err.cause as Error).message).toContain('metadata.test resolves to 169.254.169.254');
    } finally {
      await agent.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
