// npm run devchain -- [--port N] [--env-file PATH]
// Starts Anvil with the test USDC and batch-payout contract (see docs/operations.md), writes the
// env file, prints `devchain ready`, and runs until SIGTERM or SIGINT.
// npm run devchain -- --rpc-url URL [--env-file PATH]
// Deploys the same contracts onto a running Anvil (docker-compose's one-shot `contracts` service),
// writes the env file and exits; a file whose USDC contract is still on that chain is kept as is.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createPublicClient, http, isAddress } from 'viem';
import { parseArgs } from 'node:util';
import { deployDevContracts, devchainEnv, startDevchain } from './lib/devchain.js';

const DEFAULT_PORT = 8545;
const DEFAULT_ENV_FILE = '.devchain.env';

const CHAIN_WAIT_MS = 60_000;

function parseOptions(): { port: number; envFile: string; rpcUrl: string | undefined } {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, 'env-file': { type: 'string' }, 'rpc-url': { type: 'string' } },
    strict: true,
  });
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) throw new Error(`invalid --port: ${values.port}`);
  return { port, envFile: values['env-file'] ?? DEFAULT_ENV_FILE, rpcUrl: values['rpc-url'] };
}

const envText = (env: Record<string, string>) => Object.entries(env).map(([key, value]) => `${key}=${value}`).join('\n') + '\n';

/** True when the env file names a USDC contract that has code on this chain (a restart of the stack). */
async function stillDeployed(envFile: string, rpcUrl: string): Promise<boolean> {
  if (!existsSync(envFile)) return false;
  const usdc = /^USDC_ADDRESS=(.*)$/m.exec(readFileSync(envFile, 'utf8'))?.[1]?.trim();
  if (!usdc || !isAddress(usdc)) return false;
  const code = await createPublicClient({ transport: http(rpcUrl) }).getCode({ address: usdc }).catch(() => undefined);
  return code !== undefined && code !== '0x';
}

async function deployOnto(rpcUrl: string, envFile: string): Promise<void> {
  if (await stillDeployed(envFile, rpcUrl)) {
    console.log(`devchain: contracts of ${envFile} are deployed on ${rpcUrl}; kept`);
  } else {
    const deployed = await deployDevContracts(rpcUrl, CHAIN_WAIT_MS);
    // Written whole, then renamed: a reader never sees half a file.
    writeFileSync(`${envFile}.tmp`, envText(devchainEnv(deployed)));
    renameSync(`${envFile}.tmp`, envFile);
    console.log(`devchain: contracts deployed on ${rpcUrl}, variables written to ${envFile}`);
  }
  console.log('devchain ready');
}

async function main(): Promise<void> {
  const { port, envFile, rpcUrl } = parseOptions();
  if (rpcUrl !== undefined) return deployOnto(rpcUrl, envFile);
  const devchain = await startDevchain({ port });
  writeFileSync(envFile, envText(devchain.env));

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    console.log(`devchain: ${signal}, stopping anvil`);
    devchain.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('devchain: failed to stop anvil', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  // Anvil's dev keys are public (from its default mnemonic), so printing them leaks nothing.
  process.stdout.write(envText(devchain.env));
  console.log(`devchain: variables written to ${envFile}`);
  console.log('devchain ready');
  // Keeps the event loop alive until a signal arrives.
  setInterval(() => undefined, 1 << 30);
}

main().catch((error: unknown) => {
  console.error('devchain failed:', error);
  process.exit(1);
});
