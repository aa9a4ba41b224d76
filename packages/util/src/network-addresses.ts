import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses the platform never sends a request to on a user's behalf: link-local, where cloud
 * hosts answer with their own credentials (169.254.169.254, fd00:ec2::254), and "this host"
 * (0.0.0.0/8, ::), in IPv4-mapped form too. Loopback and private networks are not among them: the
 * systems and devices a platform calls live there.
 */
const REFUSED_ADDRESSES = new BlockList();
REFUSED_ADDRESSES.addSubnet('169.254.0.0', 16, 'ipv4');
REFUSED_ADDRESSES.addSubnet('0.0.0.0', 8, 'ipv4');
REFUSED_ADDRESSES.addSubnet('::ffff:169.254.0.0', 112, 'ipv6');
REFUSED_ADDRESSES.addSubnet('::ffff:0.0.0.0', 104, 'ipv6');
REFUSED_ADDRESSES.addSubnet('fe80::', 10, 'ipv6');
REFUSED_ADDRESSES.addAddress('fd00:ec2::254', 'ipv6');
REFUSED_ADDRESSES.addAddress('::', 'ipv6');

/** True when `address` (of IP `family` 4 or 6) is one no request made for a user is sent to. */
function isRefused(address: string, family: number): boolean {
  return REFUSED_ADDRESSES.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The host of `url` when it is an IP address written out that is link-local or unspecified. Sockets
 * do not resolve such a host, so {@link guardedLookup} never sees it: this is its check. A name is
 * checked by {@link guardedLookup} as its connection is made.
 */
export function refusedLiteralAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  return family !== 0 && isRefused(host, family) ? host : undefined;
}

/** The code of the error {@link guardedLookup} fails with. */
export const ADDRESS_REFUSED = 'NAP_ADDRESS_REFUSED';

export type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `dns.lookup` for the sockets of requests made on a user's behalf (`lookup` of `net.connect`,
 * `http.request` and undici's `connect`): the name resolves as usual, and fails with
 * {@link ADDRESS_REFUSED} when any address it gives is refused. Checked when the connection is made,
 * not only before, so a name that answers one address to a check and another to the connection (DNS
 * rebinding) reaches nothing refused either.
 */
export const guardedLookup = createGuardedLookup(dnsLookup);

/** A `dns.lookup`-like resolver. */
export type Resolver = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/** {@link guardedLookup} over `resolve` (tests give a resolver of their own). */
export function createGuardedLookup(resolve: Resolver): Resolver {
  return (hostname, options, callback) => guard(resolve, hostname, options, callback);
}

function guard(resolve: Resolver, hostname: string, options: LookupOptions, callback: LookupCallback): void {
  resolve(hostname, options, (err, address, family) => {
    if (err) {
      callback(err, address, family);
      return;
    }
    const all = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
    const refused = all.find((a) => isRefused(a.address, a.family));
    if (refused === undefined) {
      callback(null, address, family);
      return;
    }
    const error: NodeJS.ErrnoException = new Error(
      `${hostname} resolves to ${refused.address}: link-local and unspecified addresses (cloud metadata) are never sent requests`,
    );
    error.code = ADDRESS_REFUSED;
    callback(error, address, family);
  });
}
