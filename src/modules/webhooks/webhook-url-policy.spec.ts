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
  ])('refuses %s (%s)', (address, reason) => {
    const refusal = addressRefusal(address);
    expect(refusal).not.toBeNull();
    expect(refusal).toContain(reason);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '11.0.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
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
