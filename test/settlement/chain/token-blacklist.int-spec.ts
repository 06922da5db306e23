// USDC's isBlacklisted is consulted where the token has it (api.md "Payout safety"); a token
// without the function does not stop payouts, and a token that has it is never read as "not listed"
// on an error. Real Anvil.
import { createTestClient, createWalletClient, getAddress, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { randomBytes } from 'node:crypto';
import { devChain, startDevchain, type Devchain } from '../../../scripts/lib/devchain.js';
import { testUsdcAbi } from '../../../contracts/test-contracts.js';
import { PayoutChainClient } from '../../../src/modules/chain/payout-chain.client.js';

let devchain: Devchain;
beforeAll(async () => {
  devchain = await startDevchain();
});
afterAll(async () => {
  await devchain?.stop();
});

const someAddress = (): Address => getAddress(`0x${randomBytes(20).toString('hex')}`);

function clientWithToken(usdcAddress: Address): PayoutChainClient {
  return new PayoutChainClient({
    rpcUrl: devchain.rpcUrl,
    chainId: devchain.chainId,
    usdcAddress,
    payoutContractAddress: devchain.payoutContractAddress,
    payoutPrivateKey: devchain.payoutPrivateKey as Hex,
  });
}

describe('isBlacklisted where the token has it', () => {
  it('reads the test USDC blacklist', async () => {
    const listed = someAddress();
    const admin = createWalletClient({ chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl), account: privateKeyToAccount(devchain.usdcAdminPrivateKey as Hex) });
    const client = clientWithToken(devchain.usdcAddress);
    const hash = await admin.writeContract({ address: devchain.usdcAddress, abi: testUsdcAbi, functionName: 'blacklist', args: [listed] });
    await createTestClient({ mode: 'anvil', chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl) }).mine({ blocks: 1 });
    await waitMined(hash);
    expect(await client.isBlacklisted(listed)).toBe(true);
    expect(await client.isBlacklisted(someAddress())).toBe(false);
  });

  it.each([
    ['reverts with no data on any call', '0x60006000fd'],
    ['returns nothing on any call', '0x00'],
  ] as const)('treats a token that %s as having no blacklist', async (_label, bytecode) => {
    const token = someAddress();
    await createTestClient({ mode: 'anvil', chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl) }).setCode({ address: token, bytecode });
    const client = clientWithToken(token);
    expect(await client.isBlacklisted(someAddress())).toBe(false);
    expect(await client.isBlacklisted(someAddress())).toBe(false);
  });

  it('does not read an error of a token that has the function as "not listed"', async () => {
    const client = clientWithToken(devchain.usdcAddress);
    expect(await client.isBlacklisted(someAddress())).toBe(false);
    // The token now reverts with a reason on every call: an error, not "not listed".
    // PUSH1 0x20 PUSH1 0 REVERT after storing a non-empty word: revert data of 32 bytes.
    await createTestClient({ mode: 'anvil', chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl) }).setCode({ address: devchain.usdcAddress, bytecode: '0x600160005260206000fd' });
    await expect(client.isBlacklisted(someAddress())).rejects.toThrow();
  });
});

async function waitMined(hash: Hex): Promise<void> {
  const { createPublicClient } = await import('viem');
  await createPublicClient({ chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl) }).waitForTransactionReceipt({ hash });
}
