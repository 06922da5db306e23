import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { castSignCommand, injectedProvider, isAddressText, signatureFromInput, signWithWallet, utf8Hex, type Eip1193Provider } from './address-proof';

const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SIGNATURE = `0x${'ab'.repeat(65)}` as const;

describe('signatureFromInput', () => {
  it('takes 0x hex bytes, drops the whitespace a terminal added, and adds a missing 0x', () => {
    expect(signatureFromInput(SIGNATURE)).toEqual({ signature: SIGNATURE });
    expect(signatureFromInput(`  ${SIGNATURE.slice(0, 40)}\n${SIGNATURE.slice(40)}\n`)).toEqual({ signature: SIGNATURE });
    expect(signatureFromInput(SIGNATURE.slice(2))).toEqual({ signature: SIGNATURE });
    expect(signatureFromInput(`0X${SIGNATURE.slice(2)}`)).toEqual({ signature: SIGNATURE });
  });

  it('refuses empty, odd-length and non-hex input with a message', () => {
    for (const bad of ['', '   ', '0x', '0xabc', '0xzz', 'signature', '0x12 34 5']) expect(signatureFromInput(bad)).toHaveProperty('problem');
  });

  it('keeps every byte string as is (any length a contract wallet needs)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), (bytes) => {
        const hex = `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
        expect(signatureFromInput(hex)).toEqual({ signature: hex });
      }),
    );
  });
});

describe('utf8Hex', () => {
  it('is the message\'s UTF-8 bytes (what personal_sign hashes), multi-byte characters included', () => {
    expect(utf8Hex('')).toBe('0x');
    expect(utf8Hex('Hi\n')).toBe('0x48690a');
    expect(utf8Hex('é€')).toBe('0xc3a9e282ac');
  });

  it('decodes back to the message', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (message) => {
        const hex = utf8Hex(message).slice(2);
        const bytes = new Uint8Array(hex.length / 2).map((_, i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16));
        expect(new TextDecoder().decode(bytes)).toBe(message);
      }),
    );
  });
});

describe('isAddressText and castSignCommand', () => {
  it('accepts 0x and 40 hex digits only', () => {
    expect(isAddressText(ADDRESS)).toBe(true);
    expect(isAddressText(` ${ADDRESS.toLowerCase()} `)).toBe(true);
    for (const bad of ['', '0x', ADDRESS.slice(0, 41), `${ADDRESS}0`, ADDRESS.replace('0x', '')]) expect(isAddressText(bad)).toBe(false);
  });

  it('quotes the message for a POSIX shell, single quotes included', () => {
    expect(castSignCommand('a\nb')).toBe("cast wallet sign --interactive 'a\nb'");
    expect(castSignCommand("it's")).toBe("cast wallet sign --interactive 'it'\\''s'");
  });
});

function fakeWallet(accounts: string[], answer: unknown = SIGNATURE): Eip1193Provider & { calls: Array<{ method: string; params?: unknown[] }> } {
  const calls: Array<{ method: string; params?: unknown[] }> = [];
  return {
    calls,
    request: async (args) => {
      calls.push(args);
      if (args.method === 'eth_requestAccounts') return accounts;
      if (args.method === 'personal_sign') return answer;
      throw new Error(`unexpected ${args.method}`);
    },
  };
}

describe('signWithWallet', () => {
  it('asks for the accounts, then personal_sign of the message\'s UTF-8 hex by the address', async () => {
    const wallet = fakeWallet([ADDRESS.toLowerCase()]);
    await expect(signWithWallet(wallet, ADDRESS, 'Prove me')).resolves.toBe(SIGNATURE);
    expect(wallet.calls).toEqual([{ method: 'eth_requestAccounts' }, { method: 'personal_sign', params: [utf8Hex('Prove me'), ADDRESS] }]);
  });

  it('does not ask a wallet that lacks the address to sign, and names what it offers', async () => {
    const wallet = fakeWallet(['0x0000000000000000000000000000000000000001']);
    await expect(signWithWallet(wallet, ADDRESS, 'm')).rejects.toThrow(/does not offer 0x7099.*0x0000000000000000000000000000000000000001/);
    expect(wallet.calls.map((c) => c.method)).toEqual(['eth_requestAccounts']);
  });

  it('refuses an answer that is not a signature, and passes a refusal on', async () => {
    await expect(signWithWallet(fakeWallet([ADDRESS], null), ADDRESS, 'm')).rejects.toThrow(/not a signature/);
    const refusing: Eip1193Provider = { request: async ({ method }) => (method === 'eth_requestAccounts' ? [ADDRESS] : Promise.reject(new Error('User rejected the request.'))) };
    await expect(signWithWallet(refusing, ADDRESS, 'm')).rejects.toThrow('User rejected the request.');
  });
});

describe('injectedProvider', () => {
  it('is window.ethereum when it has request(), else null', () => {
    const wallet = fakeWallet([]);
    expect(injectedProvider({ ethereum: wallet })).toBe(wallet);
    expect(injectedProvider({})).toBeNull();
    expect(injectedProvider({ ethereum: { isMetaMask: true } })).toBeNull();
  });
});
