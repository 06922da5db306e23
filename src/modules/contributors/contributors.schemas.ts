import { createZodDto } from '../../common/validation/zod-dto.js';
import { getAddress, isAddress, type Address } from 'viem';
import { z } from 'zod';
import { idSchema } from '../../common/validation/fields.js';
import { CONTRIBUTOR_STATUSES, CONTRIBUTOR_TIERS } from './contributors.types.js';
import { contributorBalancesSchema } from '../earnings/earnings.schemas.js';

/** A contributor id follows the rule of every id (api.md "Ids"). */
export const contributorIdSchema = idSchema;

/**
 * Any 0x-prefixed 20-byte hex address, stored EIP-55 checksummed. All-lower or all-upper hex
 * carries no checksum; a mixed-case address whose checksum does not match is refused: it is most likely a typo, and a typo
 * here sends real USDC to nobody. Which well-formed addresses may be paid (not the zero address,
 * the token, the batch contract, the hot wallet, the deny list, contract code) is the payout
 * address policy's business: 422 `payout_address_refused` (src/modules/payout-safety).
 */
export const payoutAddressSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .transform((text, ctx): Address => {
    if (!/^0x[0-9a-fA-F]{40}$/.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'must be a 0x-prefixed 20-byte hex EVM address' });
      return z.NEVER;
    }
    const hex = text.slice(2);
    const carriesChecksum = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
    if (carriesChecksum && !isAddress(text, { strict: true })) {
      ctx.addIssue({ code: 'custom', message: 'mixed-case address with an invalid EIP-55 checksum' });
      return z.NEVER;
    }
    return getAddress(text);
  });

export const contributorIdParamSchema = z.object({ id: contributorIdSchema }).strict();
export class ContributorIdParamDto extends createZodDto(contributorIdParamSchema) {}

export const putContributorSchema = z
  .object({
    tier: z.enum(CONTRIBUTOR_TIERS),
    payout_address: payoutAddressSchema,
    /** Omitted: "active" for a new contributor, unchanged for an existing one. */
    status: z.enum(CONTRIBUTOR_STATUSES).optional(),
    /** true: clear a settlement flag after the payee was fixed (a new payout_address clears it too). */
    clear_flag: z.boolean().optional(),
    /** true: accept a payout address that holds contract code (a contract wallet known to move USDC). */
    allow_contract: z.boolean().optional(),
  })
  .strict();
export class PutContributorDto extends createZodDto(putContributorSchema) {}

const payoutAddressStateShape = {
  payout_address_proven: z.boolean().describe('whether the current address was proven by its own signature'),
  payout_address_proven_at: z.string().nullable(),
  payout_address_changed_at: z.string().nullable().describe('last change of the address (null: never changed since first set)'),
  payout_address_payable_from: z
    .string()
    .nullable()
    .describe('end of the cool-down after the last change (PAYOUT_ADDRESS_COOLDOWN_HOURS); null: no cool-down'),
};

export const contributorResponseSchema = z.object({
  id: z.string(),
  tier: z.enum(CONTRIBUTOR_TIERS),
  payout_address: z.string().describe('EIP-55 checksummed'),
  status: z.enum(CONTRIBUTOR_STATUSES),
  flagged_reason: z.string().nullable(),
  ...payoutAddressStateShape,
  under_review_since: z.string().nullable().describe('the usage audit holds payouts (USAGE_AUDIT_HOLD) since then, until a review'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ContributorJson = z.infer<typeof contributorResponseSchema>;
export class ContributorResponseDto extends createZodDto(contributorResponseSchema) {}

export const contributorWithBalancesResponseSchema = contributorResponseSchema.extend({
  ...contributorBalancesSchema.shape,
  balances: contributorBalancesSchema,
});
export class ContributorWithBalancesResponseDto extends createZodDto(contributorWithBalancesResponseSchema) {}

// Contributor trust: payout-address ownership proof (api.md "Contributor trust").
const nonceSchema = z.string().regex(/^[0-9a-f]{32}$/, 'must be the nonce of a challenge');

export const payoutAddressChallengeQuerySchema = z.object({ address: payoutAddressSchema }).strict();
export class PayoutAddressChallengeQueryDto extends createZodDto(payoutAddressChallengeQuerySchema) {}

export const payoutAddressChallengeResponseSchema = z.object({
  message: z.string().describe('sign this with personal_sign (EIP-191) from the address'),
  nonce: z.string(),
  expires_at: z.string(),
});
export class PayoutAddressChallengeResponseDto extends createZodDto(payoutAddressChallengeResponseSchema) {}

/** A 65-byte ECDSA signature, or any longer ERC-1271 / ERC-6492 wallet signature (bounded). */
export const SIGNATURE_HEX_CHARS_MAX = 16_384;
export const proveAddressSchema = z
  .object({
    address: payoutAddressSchema,
    signature: z
      .string()
      .max(SIGNATURE_HEX_CHARS_MAX)
      .regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'must be 0x-prefixed hex bytes')
      .transform((s) => s as `0x${string}`),
    nonce: nonceSchema,
  })
  .strict();
export class ProveAddressDto extends createZodDto(proveAddressSchema) {}

export const payoutAddressStateSchema = z.object({ contributor_id: z.string(), payout_address: z.string(), ...payoutAddressStateShape });
export type PayoutAddressStateJson = z.infer<typeof payoutAddressStateSchema>;
export class PayoutAddressStateResponseDto extends createZodDto(payoutAddressStateSchema) {}
