// The hand-written test USDC behaves like Circle's FiatToken where the payout path depends on it.
import { BaseError, ContractFunctionRevertedError, createPublicClient, createTestClient, createWalletClient, http, parseEther, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { devChain, startDevchain, type Devchain } from '../../../scripts/lib/devchain.js';
import { testUsdcAbi } from '../../../contracts/test-contracts.js';

type UsdcWrite = 'transfer' | 'transferFrom' | 'approve' | 'mint' | 'blacklist' | 'unBlacklist' | 'pause' | 'unpause';

let devchain: Devchain;
let publicClient: PublicClient;

beforeAll(async () => {
  devchain = await startDevchain();
  publicClient = createPublicClient({
    chain: devChain(devchain.rpcUrl),
    transport: http(devchain.rpcUrl, { retryCount: 0 }),
    cacheTime: 0,
  });
});

afterAll(async () => {
  await devchain?.stop();
});

/** A fresh funded account holding `usdcMicroUsdc`, minted by the admin. */
async function newHolder(usdcMicroUsdc = 0n): Promise<{ key: Hex; address: Address }> {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  const testClient = createTestClient({ mode: 'anvil', chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl) });
  await testClient.setBalance({ address, value: parseEther('1') });
  if (usdcMicroUsdc > 0n) await send(devchain.usdcAdminPrivateKey, 'mint', [address, usdcMicroUsdc]);
  return { key, address };
}

async function send(key: Hex, functionName: UsdcWrite, args: readonly unknown[]): Promise<void> {
  const wallet = createWalletClient({ chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl), account: privateKeyToAccount(key) });
  const hash = await wallet.writeContract({ address: devchain.usdcAddress, abi: testUsdcAbi, functionName, args } as never);
  expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
}

/** The revert reason of a call, or 'ok' when it would succeed. */
async function revertReason(key: Hex, functionName: UsdcWrite, args: readonly unknown[]): Promise<string> {
  try {
    await publicClient.simulateContract({
      address: devchain.usdcAddress,
      abi: testUsdcAbi,
      functionName,
      args,
      account: privateKeyToAccount(key).address,
    } as never);
    return 'ok';
  } catch (error) {
    const revert = error instanceof BaseError ? error.walk((c) => c instanceof ContractFunctionRevertedError) : null;
    if (revert instanceof ContractFunctionRevertedError && revert.reason) return revert.reason;
    throw error;
  }
}

function balanceMicroUsdc(address: Address): Promise<bigint> {
  return publicClient.readContract({ address: devchain.usdcAddress, abi: testUsdcAbi, functionName: 'balanceOf', args: [address] });
}

const BLACKLISTED = 'Blacklistable: account is blacklisted';

describe('TestUSDC', () => {
  it('has USDC metadata with 6 decimals', async () => {
    const read = (functionName: 'name' | 'symbol' | 'decimals') =>
      publicClient.readContract({ address: devchain.usdcAddress, abi: testUsdcAbi, functionName });
    expect([await read('name'), await read('symbol'), await read('decimals')]).toEqual(['USD Coin (test)', 'USDC', 6]);
  });

  it('lets only the owner mint, blacklist and pause', async () => {
    const stranger = await newHolder();
    const notOwner = 'Ownable: caller is not the owner';
    expect(await revertReason(stranger.key, 'mint', [stranger.address, 1n])).toBe(notOwner);
    expect(await revertReason(stranger.key, 'blacklist', [stranger.address])).toBe(notOwner);
    expect(await revertReason(stranger.key, 'unBlacklist', [stranger.address])).toBe(notOwner);
    expect(await revertReason(stranger.key, 'pause', [])).toBe(notOwner);
    expect(await revertReason(stranger.key, 'unpause', [])).toBe(notOwner);
  });

  it('refuses transfer, transferFrom and approve when sender, recipient or caller is blacklisted', async () => {
    const [sender, recipient, spender, listed] = [await newHolder(100n), await newHolder(), await newHolder(), await newHolder(100n)];
    await send(sender.key, 'approve', [spender.address, 50n]);
    await send(listed.key, 'approve', [spender.address, 50n]);
    await send(devchain.usdcAdminPrivateKey, 'blacklist', [listed.address]);
    expect(await publicClient.readContract({ address: devchain.usdcAddress, abi: testUsdcAbi, functionName: 'isBlacklisted', args: [listed.address] })).toBe(true);

    expect(await revertReason(listed.key, 'transfer', [recipient.address, 1n])).toBe(BLACKLISTED);
    expect(await revertReason(sender.key, 'transfer', [listed.address, 1n])).toBe(BLACKLISTED);
    expect(await revertReason(spender.key, 'transferFrom', [listed.address, recipient.address, 1n])).toBe(BLACKLISTED);
    expect(await revertReason(spender.key, 'transferFrom', [sender.address, listed.address, 1n])).toBe(BLACKLISTED);
    expect(await revertReason(listed.key, 'approve', [spender.address, 1n])).toBe(BLACKLISTED);
    expect(await revertReason(sender.key, 'approve', [listed.address, 1n])).toBe(BLACKLISTED);
    expect(await revertReason(devchain.usdcAdminPrivateKey, 'mint', [listed.address, 1n])).toBe(BLACKLISTED);

    await send(devchain.usdcAdminPrivateKey, 'blacklist', [spender.address]);
    expect(await revertReason(spender.key, 'transferFrom', [sender.address, recipient.address, 1n])).toBe(BLACKLISTED);
    // The flag shares the balance slot: listing and unlisting keep the balance intact.
    expect(await balanceMicroUsdc(listed.address)).toBe(100n);
    await send(devchain.usdcAdminPrivateKey, 'unBlacklist', [listed.address]);
    expect(await balanceMicroUsdc(listed.address)).toBe(100n);
    expect(await revertReason(listed.key, 'transfer', [recipient.address, 100n])).toBe('ok');
  });

  it('refuses transfers and approvals while paused', async () => {
    const [sender, recipient] = [await newHolder(10n), await newHolder()];
    await send(devchain.usdcAdminPrivateKey, 'pause', []);
    try {
      expect(await revertReason(sender.key, 'transfer', [recipient.address, 1n])).toBe('Pausable: paused');
      expect(await revertReason(sender.key, 'approve', [recipient.address, 1n])).toBe('Pausable: paused');
    } finally {
      await send(devchain.usdcAdminPrivateKey, 'unpause', []);
    }
    expect(await revertReason(sender.key, 'transfer', [recipient.address, 1n])).toBe('ok');
  });

  it('keeps balances exact: self-transfer, finite allowance, overdraft', async () => {
    const [holder, spender, recipient] = [await newHolder(1_000n), await newHolder(), await newHolder()];
    await send(holder.key, 'transfer', [holder.address, 400n]);
    expect(await balanceMicroUsdc(holder.address)).toBe(1_000n);

    await send(holder.key, 'approve', [spender.address, 300n]);
    await send(spender.key, 'transferFrom', [holder.address, recipient.address, 200n]);
    const allowance = await publicClient.readContract({
      address: devchain.usdcAddress, abi: testUsdcAbi, functionName: 'allowance', args: [holder.address, spender.address],
    });
    expect(allowance).toBe(100n);
    expect(await revertReason(spender.key, 'transferFrom', [holder.address, recipient.address, 101n])).toBe(
      'ERC20: transfer amount exceeds allowance',
    );
    expect(await revertReason(holder.key, 'transfer', [recipient.address, 801n])).toBe('ERC20: transfer amount exceeds balance');
    expect([await balanceMicroUsdc(holder.address), await balanceMicroUsdc(recipient.address)]).toEqual([800n, 200n]);
  });
});
