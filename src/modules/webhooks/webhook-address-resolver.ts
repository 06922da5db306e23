// DNS for webhook URLs, checked: every address a host resolves to must be public, at registration
// and again inside each delivery's connection (the lookup Node's socket uses), so a name that
// resolved to a public address when registered cannot be re-pointed at an internal one later
// (DNS rebinding): the address checked is the address connected to.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressRefusal } from './webhook-url-policy.js';

/**
 * Most addresses used per host (a name with hundreds of records is not a webhook receiver). Only
 * these are checked, and only these are handed to the socket: an address past them is never tried.
 */
export const ADDRESSES_PER_HOST_MAX = 32;

export type HostCheck = { ok: true; addresses: LookupAddress[] } | { ok: false; reason: string };

/** Resolves every address of a name (replaced in tests by a stub: no real private address is used). */
export type AddressResolver = (host: string, family?: number) => Promise<LookupAddress[]>;

export const lookupAll: AddressResolver = (host, family) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true, family: family ?? 0 }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/**
 * The addresses a connection may use (the first ADDRESSES_PER_HOST_MAX of the answer), each
 * checked; a refusal names the first that is not public.
 */
export function usableAddresses(host: string, addresses: readonly LookupAddress[]): HostCheck {
  if (addresses.length === 0) return { ok: false, reason: `${host} resolves to no address` };
  const usable = addresses.slice(0, ADDRESSES_PER_HOST_MAX);
  for (const entry of usable) {
    const reason = addressRefusal(entry.address);
    if (reason !== null) return { ok: false, reason: `${host} resolves to a refused address: ${reason}` };
  }
  return { ok: true, addresses: usable };
}

/** Resolves and checks a host (skipped entirely when private addresses are allowed). */
export async function checkHost(host: string, options: { allowPrivate: boolean; ipLiteral: boolean; resolve?: AddressResolver }): Promise<HostCheck> {
  if (options.allowPrivate) return { ok: true, addresses: [] };
  if (options.ipLiteral) {
    const reason = addressRefusal(host);
    return reason === null ? { ok: true, addresses: [{ address: host, family: host.includes(':') ? 6 : 4 }] } : { ok: false, reason };
  }
  let addresses: LookupAddress[];
  try {
    addresses = await (options.resolve ?? lookupAll)(host);
  } catch (error) {
    return { ok: false, reason: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})` };
  }
  return usableAddresses(host, addresses);
}

export class RefusedAddressError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RefusedAddressError';
  }
}

/**
 * The lookup a delivery's socket uses: resolves the name, refuses the connection if any usable
 * address is not public, else hands exactly the checked addresses to the socket (which may try
 * each in turn), never one it did not check.
 */
export function guardedLookup(resolve: AddressResolver = lookupAll): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options.family === 'number' ? options.family : options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : 0;
    resolve(hostname, family).then(
      (addresses) => {
        const check = usableAddresses(hostname, addresses);
        if (!check.ok) return callback(new RefusedAddressError(check.reason), '', 0);
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, check.addresses);
        const first = check.addresses[0]!;
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
