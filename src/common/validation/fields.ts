// Field schemas shared by the API's zod schemas: ids, money strings, token counts, timestamps.
import { z } from 'zod';
import { MoneyFormatError, parseUsdToAtto } from '../money/index.js';

export const TOKENS_MAX = 2 ** 31 - 1;
/** api.md "Ids": 1 to 256 characters (code points). */
export const ID_LENGTH_MAX = 256;
export const ID_RULE = `1 to ${ID_LENGTH_MAX} characters of Unicode text without control characters`;
/** C0 (U+0000..U+001F), DEL and C1 (U+0080..U+009F): Unicode's control characters (Cc). */
const CONTROL_CHARACTER = /\p{Cc}/u;
/** A UTF-16 code unit of a surrogate pair without its other half: no Unicode text (UTF-8 cannot hold it). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Code points of a text, counted only past the point where UTF-16 units could exceed the limit. */
function codePoints(text: string): number {
  if (text.length <= ID_LENGTH_MAX) return text.length;
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * Why a text is no id (api.md "Conventions", Ids), or null. Ids are compared exactly as sent: no
 * trimming, no normalisation, so "José" and "Jose\u0301" are two ids.
 */
export function idProblem(text: string): string | null {
  if (text.length === 0) return 'must not be empty';
  if (codePoints(text) > ID_LENGTH_MAX) return `must be at most ${ID_LENGTH_MAX} characters`;
  if (CONTROL_CHARACTER.test(text)) return 'must not contain control characters (NUL, C0 or C1)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (a lone surrogate is not)';
  return null;
}

/**
 * Every id of the API (event, user, contributor, hold ids, references): any Unicode text without
 * control characters, 1 to 256 characters. Gateways use e-mail addresses (`alice+x@example.com`),
 * names with spaces (`Jane Doe`), slashes (`acme/team`) and upstream ids past 200 characters.
 */
export const idSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'required' : `must be a string: ${ID_RULE}`) })
  .superRefine((text, ctx) => {
    const problem = idProblem(text);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ description: ID_RULE, minLength: 1, maxLength: ID_LENGTH_MAX });

/** Gateway-chosen ids (event ids, hold ids, references): the same rule as every id. */
export const externalIdSchema = idSchema;

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
