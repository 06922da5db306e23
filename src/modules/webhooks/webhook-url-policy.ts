// Which webhook URLs and addresses may be called: a webhook must not become a way to reach the
// internal network (SSRF). Pure: parsing and address classification, no DNS (see
// webhook-address-resolver.ts for the lookups, done at registration and again at every delivery).
import { BlockList, isIP } from 'node:net';

export const WEBHOOK_URL_LENGTH_MAX = 2048;

/**
 * Addresses no webhook may reach: this host, private and shared networks, link-local (cloud
 * metadata at 169.254.169.254), multicast, reserved and documentation ranges (IANA's special-purpose
 * registries, the parts not globally reachable).
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
/**
 * IPv6 ranges refused outright. The forms that embed an IPv4 address (compatible, mapped,
 * translated, NAT64, 6to4) are not here: they take the verdict of the IPv4 inside (see
 * embeddedIpv4). Teredo (2001::/32, inside 2001::/23) hides its client's IPv4 and is refused.
 * Anything outside 2000::/3, the only global unicast space allocated, is refused too.
 */
const REFUSED_IPV6: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'discard'],
  ['100:0:0:1::', 64, 'dummy prefix'],
  ['2001::', 32, 'Teredo (the client IPv4 is obfuscated)'],
  ['2001::', 23, 'IETF protocol assignments'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'segment routing'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

function blockListOf(ranges: ReadonlyArray<[string, number, string]>, type: 'ipv4' | 'ipv6'): Array<[BlockList, string]> {
  return ranges.map(([network, prefix, reason]) => {
    const one = new BlockList();
    one.addSubnet(network, prefix, type);
    return [one, reason];
  });
}
const IPV4_RULES = blockListOf(REFUSED_IPV4, 'ipv4');
const IPV6_RULES = blockListOf(REFUSED_IPV6, 'ipv6');

function ipv4Refusal(address: string): string | null {
  for (const [rule, reason] of IPV4_RULES) if (rule.check(address, 'ipv4')) return reason;
  return null;
}

/**
 * The eight 16-bit groups of an IPv6 address. Through the WHATWG URL parser, which gives the
 * canonical text (hex groups, one `::`, no dotted tail), so every spelling of an address
 * (`::ffff:10.0.0.1`, `::FFFF:a00:1`, `0:0:0:0:0:ffff:a00:1`) is read the same way. A zone id
 * (`%eth0`) is dropped: only link-local addresses carry one, and those are refused by range.
 */
function ipv6Groups(address: string): number[] | null {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head = '', tail] = canonical.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? 0 : 8 - front.length - back.length;
  const groups = [...front, ...Array<string>(zeros).fill('0'), ...back].map((group) => parseInt(group, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

const dotted = (bytes: readonly number[]) => bytes.join('.');
const bytesOf = (groups: readonly number[]) => groups.flatMap((g) => [g >> 8, g & 0xff]);

/**
 * The IPv4 addresses an IPv6 address embeds, with the form's name; null when it embeds none.
 * NAT64 local-use prefixes (64:ff9b:1::/48, RFC 8215) may be any RFC 6052 length from /48 to /96,
 * each placing the IPv4 elsewhere: every candidate placement is returned, and all must be public.
 */
function embeddedIpv4(groups: readonly number[]): { form: string; ipv4: string[] } | null {
  const b = bytesOf(groups);
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const last32 = dotted(b.slice(12, 16));
  if (zero(0, 6)) return { form: 'IPv4-compatible', ipv4: [last32] };
  if (zero(0, 5) && groups[5] === 0xffff) return { form: 'IPv4-mapped', ipv4: [last32] };
  if (zero(0, 4) && groups[4] === 0xffff && groups[5] === 0) return { form: 'IPv4-translated', ipv4: [last32] };
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) return { form: 'NAT64', ipv4: [last32] };
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) {
    // RFC 6052 section 2.2: /48 -> bytes 6-7 and 9-10, /56 -> 7 and 9-11, /64 -> 9-12, /96 -> 12-15 (byte 8 is reserved).
    const candidates = [[b[6]!, b[7]!, b[9]!, b[10]!], [b[7]!, b[9]!, b[10]!, b[11]!], b.slice(9, 13), b.slice(12, 16)];
    return { form: 'NAT64 (local use)', ipv4: candidates.map(dotted) };
  }
  if (groups[0] === 0x2002) return { form: '6to4', ipv4: [dotted(b.slice(2, 6))] };
  return null;
}

/** Why an IP address may not be called, or null for a public unicast address. */
export function addressRefusal(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 4) {
    const reason = ipv4Refusal(address);
    return reason === null ? null : `${address} is ${reason}`;
  }
  const groups = ipv6Groups(address);
  if (groups === null) return 'not an IP address';
  // The unspecified and loopback addresses also parse as IPv4-compatible; name them as they are.
  for (const [rule, reason] of IPV6_RULES.slice(0, 2)) if (rule.check(address, 'ipv6')) return `${address} is ${reason}`;
  const embedded = embeddedIpv4(groups);
  if (embedded) {
    for (const ipv4 of embedded.ipv4) {
      const reason = ipv4Refusal(ipv4);
      if (reason !== null) return `${address} is ${embedded.form} for ${ipv4}, which is ${reason}`;
    }
    return null;
  }
  for (const [rule, reason] of IPV6_RULES) if (rule.check(address, 'ipv6')) return `${address} is ${reason}`;
  if ((groups[0]! & 0xe000) !== 0x2000) return `${address} is not global unicast (outside 2000::/3)`;
  return null;
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
