import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/** The address a request came from. */
export type ClientAddress = (req: IncomingMessage) => string;

/**
 * The address login throttling counts a request by: the socket's peer, or, with `NAP_TRUST_PROXY`,
 * the address the proxy in front of the gateway saw (the last `X-Forwarded-For` entry: the one the
 * proxy added; entries before it are the client's word and could be anything). One proxy hop is
 * trusted, as for `X-Forwarded-Proto` and `X-Forwarded-Host`.
 */
export function createClientAddress(options: { trustProxy?: boolean }): ClientAddress {
  const trustedHops = options.trustProxy === true ? 1 : 0;
  const trust = (_address: string, hop: number): boolean => hop < trustedHops;
  return (req) => proxyAddr(req, trust);
}
