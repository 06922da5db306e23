// DNS for webhook URLs, checked: every address a host resolves to must be public, at registration
// and again inside each delivery's connection (the lookup Node's socket uses), so a name that
// resolved to a public address when registered cannot be re-pointed at an internal one later
// (DNS rebinding): the address checked is the address connected to.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressRefusal } from './webhook-url-policy.js';

/** Most addresses looked at per host (a name with hundreds of records is not a webhook receiver). */
const ADDRESSES_PER_HOST_MAX = 32;

export type HostCheck = { ok: true; addresses: LookupAddress[] } | { ok: false; reason: string };

export function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

/** The first refused address among those a host resolves to, as a reason; null when all are public. */
export function refusalOf(host: string, addresses: readonly LookupAddress[]): string | null {
  if (addresses.length === 0) return `${host} resolves to no address`;
  for (const entry of addresses.slice(0, ADDRESSES_PER_HOST_MAX)) {
    const reason = addressRefusal(entry.address);
    if (reason !== null) return `${host} resolves to a refused address: ${reason}`;
  }
  return null;
}

/** Resolves and checks a host (skipped entirely when private addresses are allowed). */
export async function checkHost(host: string, options: { allowPrivate: boolean; ipLiteral: boolean }): Promise<HostCheck> {
  if (options.allowPrivate) return { ok: true, addresses: [] };
  if (options.ipLiteral) {
    const reason = addressRefusal(host);
    return reason === null ? { ok: true, addresses: [{ address: host, family: host.includes(':') ? 6 : 4 }] } : { ok: false, reason };
  }
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAll(host);
  } catch (error) {
    return { ok: false, reason: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})` };
  }
  const reason = refusalOf(host, addresses);
  return reason === null ? { ok: true, addresses } : { ok: false, reason };
}

export class RefusedAddressError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RefusedAddressError';
  }
}

/**
 * The lookup a delivery's socket uses: resolves every address, refuses the connection if any is
 * not public, else hands the checked addresses to the socket (which connects to one of them).
 */
export function guardedLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true, family: options.family }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const reason = refusalOf(hostname, addresses);
      if (reason !== null) return callback(new RefusedAddressError(reason), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
