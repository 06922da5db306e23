// Long string literals of a JSON text cut out of its bytes before anything is decoded. Pure.

/**
 * String literals longer than this are read past, never decoded: only prompts and responses are
 * that long (ids, models and user ids the ledger reads are at most 200 characters).
 */
export const LONG_STRING_BYTES_MIN = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The body with every string literal of more than LONG_STRING_BYTES_MIN bytes replaced by "".
 * Outside a string a quote always opens one (JSON has no other use for it), and inside one a
 * quote closes it unless an odd run of backslashes precedes it; Buffer.indexOf jumps from quote
 * to quote natively. An unterminated string leaves the body as it is (JSON.parse then refuses it).
 * Slices are views: only the kept parts are copied, once.
 */
export function skeletonOf(bytes: Buffer, longBytes = LONG_STRING_BYTES_MIN): Buffer {
  const kept: Buffer[] = [];
  let from = 0;
  let at = bytes.indexOf(QUOTE);
  while (at !== -1) {
    const end = closingQuoteAt(bytes, at + 1);
    if (end === -1) return bytes;
    if (end - at - 1 > longBytes) {
      kept.push(bytes.subarray(from, at + 1));
      from = end;
    }
    at = bytes.indexOf(QUOTE, end + 1);
  }
  if (kept.length === 0) return bytes;
  kept.push(bytes.subarray(from));
  return Buffer.concat(kept);
}

/** The quote that closes a string literal whose content starts at `from`: the first after an even run of backslashes; -1 if none. */
export function closingQuoteAt(bytes: Buffer, from: number): number {
  let end = bytes.indexOf(QUOTE, from);
  while (end !== -1) {
    let backslashes = 0;
    while (bytes[end - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = bytes.indexOf(QUOTE, end + 1);
  }
  return -1;
}
