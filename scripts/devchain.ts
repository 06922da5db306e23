// npm run devchain -- [--port N] [--env-file PATH]
// Starts Anvil with the test USDC and batch-payout contract (see docs/operations.md), writes the
// env file, prints `devchain ready`, and runs until SIGTERM or SIGINT.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startDevchain } from './lib/devchain.js';

const DEFAULT_PORT = 8545;
const DEFAULT_ENV_FILE = '.devchain.env';

function parseOptions(): { port: number; envFile: string } {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, 'env-file': { type: 'string' } },
    strict: true,
  });
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) throw new Error(`invalid --port: ${values.port}`);
  return { port, envFile: values['env-file'] ?? DEFAULT_ENV_FILE };
}

async function main(): Promise<void> {
  const { port, envFile } = parseOptions();
  const devchain = await startDevchain({ port });
  const envText = Object.entries(devchain.env).map(([key, value]) => `${key}=${value}`).join('\n') + '\n';
  writeFileSync(envFile, envText);

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
  process.stdout.write(envText);
  console.log(`devchain: variables written to ${envFile}`);
  console.log('devchain ready');
  // Keeps the event loop alive until a signal arrives.
  setInterval(() => undefined, 1 << 30);
}

main().catch((error: unknown) => {
  console.error('devchain failed:', error);
  process.exit(1);
});
