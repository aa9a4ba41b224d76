import type { IncomingMessage } from 'node:http';
import { createClientAddress } from '../src/client-address';

/** A request as Node hands it over: the peer's address and the headers. */
function request(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

describe('the address logins are counted by', () => {
  it('is the peer without NAP_TRUST_PROXY, whatever X-Forwarded-For says', () => {
    const addressOf = createClientAddress({});
    expect(addressOf(request('10.0.0.5'))).toBe('10.0.0.5');
    expect(addressOf(request('10.0.0.5', '203.0.113.7'))).toBe('10.0.0.5');
  });

  it('is the entry the trusted proxy added with NAP_TRUST_PROXY, not what the client claimed before it', () => {
    const addressOf = createClientAddress({ trustProxy: true });
    expect(addressOf(request('10.0.0.1', '203.0.113.7'))).toBe('203.0.113.7');
    expect(addressOf(request('10.0.0.1', '198.51.100.1, 192.0.2.9, 203.0.113.7'))).toBe('203.0.113.7');
    // a proxy that added nothing: the proxy itself
    expect(addressOf(request('10.0.0.1'))).toBe('10.0.0.1');
  });
});
