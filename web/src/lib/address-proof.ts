// Pure parts of the payout-address proof (api.md "Contributor trust"; tested in address-proof.test.ts).
// The browser only ever holds the message and a signature: the key stays in the wallet, or in
// whatever signed elsewhere (`cast wallet sign`).

/** A 20-byte hex address, any case (the API checks the checksum and its own rules). */
export function isAddressText(text: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(text.trim());
}

/**
 * A pasted signature as the API takes it (0x-prefixed hex bytes), or a problem to show. Spaces and
 * line breaks a terminal or a copy added are dropped; a bare hex string gets its 0x.
 */
export function signatureFromInput(text: string): { signature: `0x${string}` } | { problem: string } {
  const compact = text.replace(/\s+/g, '');
  if (compact === '') return { problem: 'Paste the signature, or sign with the wallet.' };
  const hex = /^0x/i.test(compact) ? compact.slice(2) : compact;
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length === 0 || hex.length % 2 !== 0) return { problem: 'A signature is hex bytes (0x…), like the output of personal_sign or `cast wallet sign`.' };
  return { signature: `0x${hex}` };
}

/** The UTF-8 bytes of a message as 0x hex: personal_sign's data parameter (EIP-1193 wallets take it). */
export function utf8Hex(message: string): `0x${string}` {
  let hex = '';
  for (const byte of new TextEncoder().encode(message)) hex += byte.toString(16).padStart(2, '0');
  return `0x${hex}`;
}

/** The shell command that signs the message elsewhere (Foundry's cast: EIP-191 personal_sign). */
export function castSignCommand(message: string): string {
  return `cast wallet sign --interactive '${message.replace(/'/g, `'\\''`)}'`;
}

/** The part of an EIP-1193 provider the proof uses. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** `window.ethereum` when a wallet injected one. */
export function injectedProvider(scope: { ethereum?: unknown } = globalThis as { ethereum?: unknown }): Eip1193Provider | null {
  const candidate = scope.ethereum as Partial<Eip1193Provider> | undefined;
  return candidate && typeof candidate.request === 'function' ? (candidate as Eip1193Provider) : null;
}

export class WalletProblem extends Error {
  override name = 'WalletProblem';
}

/**
 * Asks the wallet for its accounts, then for a personal_sign of the message by `address`. A wallet
 * that does not hold the address is told apart from one that refused (its message is kept).
 */
export async function signWithWallet(provider: Eip1193Provider, address: string, message: string): Promise<`0x${string}`> {
  const accounts = (await provider.request({ method: 'eth_requestAccounts' })) as unknown;
  const held = Array.isArray(accounts) ? accounts.filter((a): a is string => typeof a === 'string') : [];
  if (!held.some((a) => a.toLowerCase() === address.trim().toLowerCase())) {
    throw new WalletProblem(`The wallet does not offer ${address.trim()} (it offers ${held.length > 0 ? held.join(', ') : 'no account'}): switch to that account, or sign elsewhere and paste the signature.`);
  }
  const signed = await provider.request({ method: 'personal_sign', params: [utf8Hex(message), address.trim()] });
  const parsed = typeof signed === 'string' ? signatureFromInput(signed) : { problem: 'the wallet returned no signature' };
  if ('problem' in parsed) throw new WalletProblem(`The wallet's answer is not a signature: ${String(signed)}`);
  return parsed.signature;
}
