import { contributorIdSchema, payoutAddressSchema } from './contributors.schemas.js';

const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('payoutAddressSchema', () => {
  it.each([CHECKSUMMED, CHECKSUMMED.toLowerCase(), `0x${CHECKSUMMED.slice(2).toUpperCase()}`])('checksums %s', (input) => {
    expect(payoutAddressSchema.parse(input)).toBe(CHECKSUMMED);
  });

  it.each([
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', /checksum/],
    ['5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', /0x-prefixed/],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe', /0x-prefixed/],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg', /0x-prefixed/],
  ])('refuses %s', (input, message) => {
    const result = payoutAddressSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(message);
  });
});

describe('contributorIdSchema', () => {
  it('is the rule of every id (api.md "Ids"): any Unicode text without control characters, 1 to 256 characters', () => {
    for (const good of ['c_7:eu-west.1', 'x'.repeat(256), 'a b', 'acme/team', 'ü', 'alice+x@example.com']) expect(contributorIdSchema.safeParse(good).success).toBe(true);
    for (const bad of ['', 'x'.repeat(257), 'a\u0000b', 'a\u0085b', 'tab\there']) expect(contributorIdSchema.safeParse(bad).success).toBe(false);
  });
});
