import fc from 'fast-check';
import { addressRefusal, checkWebhookUrl } from './webhook-url-policy.js';

describe('addressRefusal', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['0.0.0.0', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.51.100.7', 'documentation'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['2002:a00:1::1', '6to4'],
    // Issue 24: IPv6 forms embedding a private or link-local IPv4 were taken for public.
    ['::10.0.0.1', 'IPv4-compatible for 10.0.0.1, which is private'],
    ['::a9fe:a9fe', 'IPv4-compatible for 169.254.169.254, which is link-local'],
    ['::ffff:0:10.0.0.1', 'IPv4-translated for 10.0.0.1, which is private'],
    ['::ffff:0:7f00:1', 'IPv4-translated for 127.0.0.1, which is loopback'],
    ['0:0:0:0:0:FFFF:169.254.169.254', 'IPv4-mapped for 169.254.169.254'],
    ['64:ff9b::169.254.169.254', 'NAT64 for 169.254.169.254, which is link-local'],
    ['64:ff9b:1::a9fe:a9fe', 'NAT64 (local use)'],
    ['64:ff9b:1:a9:fe00:a9fe::', 'NAT64 (local use)'],
    ['2002:a9fe:a9fe::1', '6to4 for 169.254.169.254, which is link-local'],
    ['2002:c0a8:101::', '6to4 for 192.168.1.1, which is private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['fe80::1%eth0', 'link-local'],
    ['3fff::1', 'documentation'],
    ['5f00::1', 'segment routing'],
    ['4000::1', 'not global unicast'],
    ['::2', 'IPv4-compatible for 0.0.0.2, which is this network'],
  ])('refuses %s (%s)', (address, reason) => {
    const refusal = addressRefusal(address);
    expect(refusal).not.toBeNull();
    expect(refusal).toContain(reason);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '11.0.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '::ffff:0:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1'])('allows the public address %s', (address) => {
    expect(addressRefusal(address)).toBeNull();
  });

  it('refuses text that is not an address', () => {
    expect(addressRefusal('localhost')).toBe('not an IP address');
  });

  it('property: every IPv4 address in 10/8, 127/8, 169.254/16, 172.16/12, 192.168/16 is refused, in both notations', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const privateV4 = fc.oneof(
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
      fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => `172.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
    );
    fc.assert(
      fc.property(privateV4, (address) => {
        expect(addressRefusal(address)).not.toBeNull();
        expect(addressRefusal(`::ffff:${address}`)).not.toBeNull();
      }),
      { seed: 17, numRuns: 500 },
    );
  });
});

const octet = fc.integer({ min: 0, max: 255 });
const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
/** Every IPv6 form that embeds an IPv4 address, built from its four bytes. */
const EMBEDDINGS: Array<[string, (o: number[]) => string]> = [
  ['mapped, dotted', (o) => `::ffff:${o.join('.')}`],
  ['mapped, hex', (o) => `::ffff:${hex(o[0]!, o[1]!)}:${hex(o[2]!, o[3]!)}`],
  ['compatible', (o) => `::${o.join('.')}`],
  ['translated', (o) => `::ffff:0:${o.join('.')}`],
  ['NAT64', (o) => `64:ff9b::${o.join('.')}`],
  ['6to4', (o) => `2002:${hex(o[0]!, o[1]!)}:${hex(o[2]!, o[3]!)}::1`],
];

describe('IPv6 forms that embed an IPv4 address', () => {
  it('property: each form has the verdict of the IPv4 address inside it', () => {
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), fc.constantFrom(...EMBEDDINGS), (bytes, [form, embed]) => {
        const ipv4 = bytes.join('.');
        // The unspecified and loopback addresses are refused as what they are, not via 0.0.0.0/1.
        fc.pre(!(form === 'compatible' && bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0 && bytes[3]! <= 1));
        expect({ form, ipv4, refused: addressRefusal(embed(bytes)) !== null }).toEqual({ form, ipv4, refused: addressRefusal(ipv4) !== null });
      }),
      { seed: 24, numRuns: 2000 },
    );
  });

  it('property: a private or link-local IPv4 is refused in every form, NAT64 local use at every prefix length included', () => {
    const privateV4 = fc.oneof(
      fc.tuple(octet, octet, octet).map(([b, c, d]) => [10, b, c, d]),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => [127, b, c, d]),
      fc.tuple(octet, octet).map(([c, d]) => [169, 254, c, d]),
      fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => [172, b, c, d]),
      fc.tuple(octet, octet).map(([c, d]) => [192, 168, c, d]),
    );
    const local: Array<(o: number[]) => string> = [
      (o) => `64:ff9b:1:${hex(o[0]!, o[1]!)}:${hex(0, o[2]!)}:${hex(o[3]!, 0)}::`, // /48
      (o) => `64:ff9b:1:${hex(0x12, o[0]!)}:${hex(0, o[1]!)}:${hex(o[2]!, o[3]!)}::`, // /56
      (o) => `64:ff9b:1:1234:${hex(0, o[0]!)}:${hex(o[1]!, o[2]!)}:${hex(o[3]!, 0)}:0`, // /64
      (o) => `64:ff9b:1:1234:5678:9abc:${hex(o[0]!, o[1]!)}:${hex(o[2]!, o[3]!)}`, // /96
    ];
    fc.assert(
      fc.property(privateV4, (bytes) => {
        for (const [form, embed] of EMBEDDINGS) expect({ form, refused: addressRefusal(embed(bytes)) !== null }).toEqual({ form, refused: true });
        for (const embed of local) expect(addressRefusal(embed(bytes))).toContain('NAT64 (local use)');
      }),
      { seed: 240, numRuns: 500 },
    );
  });
});

describe('checkWebhookUrl', () => {
  it('accepts http and https outside production and gives the host without brackets', () => {
    expect(checkWebhookUrl('https://hooks.example.com/in', { httpsOnly: false })).toMatchObject({ ok: true, host: 'hooks.example.com', ipLiteral: false });
    expect(checkWebhookUrl('http://[::1]:8080/x', { httpsOnly: false })).toMatchObject({ ok: true, host: '::1', ipLiteral: true });
    expect(checkWebhookUrl('http://127.0.0.1:9/x', { httpsOnly: false })).toMatchObject({ ok: true, host: '127.0.0.1', ipLiteral: true });
  });

  it('refuses http in production, other schemes, credentials and junk', () => {
    expect(checkWebhookUrl('http://hooks.example.com/', { httpsOnly: true })).toEqual({ ok: false, reason: 'only https URLs are allowed in production' });
    expect(checkWebhookUrl('ftp://hooks.example.com/', { httpsOnly: false }).ok).toBe(false);
    expect(checkWebhookUrl('file:///etc/passwd', { httpsOnly: false }).ok).toBe(false);
    expect(checkWebhookUrl('https://user:pw@hooks.example.com/', { httpsOnly: false }).ok).toBe(false);
    expect(checkWebhookUrl('not a url', { httpsOnly: false }).ok).toBe(false);
    expect(checkWebhookUrl(`https://h.example.com/${'a'.repeat(3000)}`, { httpsOnly: false }).ok).toBe(false);
  });
});
