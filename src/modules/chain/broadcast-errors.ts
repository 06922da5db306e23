// Node error messages differ (geth, reth, anvil, nethermind, erigon); match them loosely.
const ALREADY_KNOWN_PATTERNS = [/already known/i, /known transaction/i, /alreadyknown/i, /already imported/i, /already exists/i];
const NONCE_TOO_LOW_PATTERNS = [/nonce too low/i, /noncetoolow/i, /nonce has already been used/i, /invalid nonce/i];

/** Concatenates the messages of an error and its causes (viem nests the node's message). */
export function errorMessages(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 10; depth++) {
    messages.push(current.message, 'details' in current ? String(current.details) : '');
    current = current.cause;
  }
  return messages.join(' | ');
}

export function isAlreadyKnownError(error: unknown): boolean {
  const text = errorMessages(error);
  return ALREADY_KNOWN_PATTERNS.some((pattern) => pattern.test(text));
}

export function isNonceTooLowError(error: unknown): boolean {
  const text = errorMessages(error);
  return NONCE_TOO_LOW_PATTERNS.some((pattern) => pattern.test(text));
}
