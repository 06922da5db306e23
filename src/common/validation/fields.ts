// Field schemas shared by the API's zod schemas: ids, money strings, token counts, timestamps.
import { z } from 'zod';
import { MoneyFormatError, parseUsdToAtto } from '../money/index.js';

export const TOKENS_MAX = 2 ** 31 - 1;
export const ID_LENGTH_MAX = 128;

/** Internal ids (contributors, users, holds): printable ASCII without spaces or slashes. */
export const idSchema = z
  .string()
  .min(1)
  .max(ID_LENGTH_MAX)
  .regex(/^[A-Za-z0-9._:@\-]+$/, 'only letters, digits and . _ : @ - are allowed');

/** Gateway-chosen external ids (event ids, references): printable ASCII, no whitespace. */
export const externalIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces');

export const modelSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces');

export const tokenCountSchema = z.number().int('must be an integer').min(0, 'must not be negative').max(TOKENS_MAX, `must be at most ${TOKENS_MAX}`);

/** Postgres timestamps span years 4713 BC..294276 AD but read and write ISO text only for 0001..9999. */
export const TIMESTAMP_YEAR_MIN = 1;
export const TIMESTAMP_YEAR_MAX = 9999;
export const TIMESTAMP_RANGE_MESSAGE = `must fall between the years ${TIMESTAMP_YEAR_MIN} and ${TIMESTAMP_YEAR_MAX} in UTC`;

/** An RFC 3339 instant whose UTC year Postgres stores ("0000-01-01T00:00:00Z" was a 500). */
export function isStorableInstant(text: string): boolean {
  const year = new Date(text).getUTCFullYear();
  return year >= TIMESTAMP_YEAR_MIN && year <= TIMESTAMP_YEAR_MAX;
}

export const timestampSchema = z.iso
  .datetime({ offset: true, message: 'must be an RFC 3339 timestamp' })
  .refine(isStorableInstant, TIMESTAMP_RANGE_MESSAGE);

/**
 * Largest magnitude of one amount a request may move (credit, adjustment, hold): a trillion USD.
 * Balances are NUMERIC(38,0) atto-USD (about 1e20 USD), and shared accounts such as
 * external:funding sum every credit: one amount near that range (accepted before) made every
 * later credit overflow. Under this cap it takes 1e8 maximal requests to get there.
 */
export const REQUEST_AMOUNT_USD_MAX = 1_000_000_000_000n;
export const REQUEST_AMOUNT_ATTO_MAX = REQUEST_AMOUNT_USD_MAX * 10n ** 18n;
export const REQUEST_AMOUNT_MESSAGE = `must be at most ${REQUEST_AMOUNT_USD_MAX} USD in magnitude`;

/** parseUsdToAtto within REQUEST_AMOUNT_ATTO_MAX; throws MoneyFormatError. */
export function parseRequestAmountAtto(text: string, options: { allowNegative: boolean; decimalsMax?: number }): bigint {
  const atto = parseUsdToAtto(text, { allowNegative: options.allowNegative, decimalsMax: options.decimalsMax ?? 18 });
  if (atto > REQUEST_AMOUNT_ATTO_MAX || -atto > REQUEST_AMOUNT_ATTO_MAX) throw new MoneyFormatError(REQUEST_AMOUNT_MESSAGE);
  return atto;
}

/**
 * A USD amount as an exact decimal string, converted to atto-USD. A JSON number is refused:
 * it may already have been rounded by a binary float on the way in.
 */
export function usdAmountSchema(options: { allowNegative?: boolean; decimalsMax?: number } = {}) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'required' : 'money must be a decimal string, e.g. "12.5"') })
    .transform((text, ctx) => {
      try {
        return parseRequestAmountAtto(text, { allowNegative: options.allowNegative ?? false, decimalsMax: options.decimalsMax });
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as MoneyFormatError).message });
        return z.NEVER;
      }
    });
}
