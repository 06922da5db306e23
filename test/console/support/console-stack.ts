// The whole stack the console runs against, for the browser suite: the real HTTP app listening on
// a port (it serves web/dist at /console/), the real worker (payout sender), real Postgres and
// Redis, and an Anvil devchain with the test USDC and the batch-payout contract.
import { randomBytes } from 'node:crypto';
import { createPublicClient, http, type Address, type PublicClient } from 'viem';
import { devChain, startDevchain, type Devchain } from '../../../scripts/lib/devchain.js';
import { testUsdcAbi } from '../../../contracts/test-contracts.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../../support/test-app.js';
import { startTestWorker } from '../../support/test-worker.js';

export interface ConsoleStack {
  t: TestApp;
  baseUrl: string;
  adminKey: string;
  devchain: Devchain;
  chain: PublicClient;
  /** GET with a key, parsed JSON (what the console shows is compared with this). */
  get: (path: string, key?: string) => Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON, checked field by field
  usdcBalance: (address: Address) => Promise<bigint>;
  close: () => Promise<void>;
}

export async function startConsoleStack(label: string, env: Record<string, string> = {}): Promise<ConsoleStack> {
  const devchain = await startDevchain();
  const fullEnv = {
    ...devchain.env,
    QUEUE_PREFIX: `test-${randomBytes(4).toString('hex')}`,
    SETTLEMENT_CONFIRMATIONS: '1',
    SETTLEMENT_SCHEDULER_ENABLED: 'false',
    ...env,
  };
  const t = await startTestApp(label, fullEnv);
  await t.app.listen(0, '127.0.0.1');
  const address = t.app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const worker = await startTestWorker(t.databaseUrl, fullEnv);
  const chain = createPublicClient({ chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl, { retryCount: 0 }), cacheTime: 0 }) as PublicClient;
  return {
    t,
    baseUrl,
    adminKey: TEST_ADMIN_KEY,
    devchain,
    chain,
    get: async (path, key = TEST_ADMIN_KEY) => {
      const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
      return { status: response.status, body: await response.json() };
    },
    usdcBalance: (owner) => chain.readContract({ address: devchain.usdcAddress, abi: testUsdcAbi, functionName: 'balanceOf', args: [owner] }) as Promise<bigint>,
    close: async () => {
      await worker.close();
      await t.close();
      await devchain.stop();
    },
  };
}
