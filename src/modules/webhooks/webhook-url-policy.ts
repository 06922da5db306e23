// Which webhook URLs and addresses may be called: a webhook must not become a way to reach the
// internal network (SSRF). Pure: parsing and address classification, no DNS (see
// webhook-address-resolver.ts for the lookups, done at registration and again at every delivery).
import { BlockList, isIP } from 'node:net';

export const WEBHOOK_URL_LENGTH_MAX = 2048;

/**
 * Addresses no webhook may reach: this host, private and shared networks, link-local (cloud
 * metadata at 169.254.169.254), multicast, reserved and documentation ranges, and the IPv6
 * forms that embed or translate to IPv4 (checked through their IPv4 address by BlockList).
 */
const REFUSED_IPV4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const REFUSED_IPV6: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b::', 96, 'NAT64'],
  ['64:ff9b:1::', 48, 'NAT64 (local)'],
  ['100::', 64, 'discard'],
  ['2001::', 23, 'IETF protocol assignments'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const refused = new BlockList();
for (const [network, prefix] of REFUSED_IPV4) refused.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of REFUSED_IPV6) refused.addSubnet(network, prefix, 'ipv6');
// BlockList matches IPv4-mapped IPv6 (::ffff:a.b.c.d) against the IPv4 rules by itself.

function ipv4ToInt(address: string): number {
  return address.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function ipv4Reason(address: string): string {
  const value = ipv4ToInt(address);
  for (const [network, prefix, reason] of REFUSED_IPV4) {
    const size = 2 ** (32 - prefix);
    const start = ipv4ToInt(network);
    if (value >= start && value < start + size) return reason;
  }
  return 'not public';
}

/** The IPv4 address inside an IPv4-mapped IPv6 address, dotted (::ffff:1.2.3.4) or hex (::ffff:102:304). */
function mappedIpv4(address: string): string | null {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Why an IP address may not be called, or null for a public unicast address. */
export function addressRefusal(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (!refused.check(address, type)) return null;
  if (family === 4) return `${address} is ${ipv4Reason(address)}`;
  const mapped = mappedIpv4(address);
  if (mapped) return `${address} is ${ipv4Reason(mapped)}`;
  const rule = REFUSED_IPV6.find(([network, prefix]) => {
    const one = new BlockList();
    one.addSubnet(network, prefix, 'ipv6');
    return one.check(address, 'ipv6');
  });
  // IPv4-compatible and other embedded forms the table above does not name.
  return `${address} is ${rule?.[2] ?? 'not public'}`;
}

export type WebhookUrlCheck =
  | { ok: true; url: URL; host: string; ipLiteral: boolean }
  | { ok: false; reason: string };

/**
 * The URL's syntax: http(s) only (https only in production), no credentials in it, a host. The
 * host is returned without IPv6 brackets, ready for a lookup.
 */
export function checkWebhookUrl(text: string, options: { httpsOnly: boolean }): WebhookUrlCheck {
  if (text.length > WEBHOOK_URL_LENGTH_MAX) return { ok: false, reason: `longer than ${WEBHOOK_URL_LENGTH_MAX} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'only http and https URLs can receive webhooks' };
  if (options.httpsOnly && url.protocol !== 'https:') return { ok: false, reason: 'only https URLs are allowed in production' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'credentials in the URL are not allowed (verify the signature instead)' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') return { ok: false, reason: 'the URL has no host' };
  return { ok: true, url, host, ipLiteral: isIP(host) !== 0 };
}
