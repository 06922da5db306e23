// Compiles contracts/*.sol offline with solc-js and writes the committed outputs:
// contracts/artifacts/<Name>.json, src/modules/chain/contract-artifacts.ts (the contracts
// production deploys and calls) and contracts/test-contracts.ts (test-only: TestUSDC, Disperse,
// used by the tests, the devchain, the demo and the bench; never imported from src/).
// `--check` compiles without writing and exits 1 if the committed outputs are stale.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import solc from 'solc';
import { parseAbi } from 'viem';

const ROOT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONTRACTS_DIR = join(ROOT_DIR, 'contracts');
const ARTIFACTS_DIR = join(CONTRACTS_DIR, 'artifacts');
/** Generated TypeScript per audience: production code must not ship test-only contracts. */
const TS_OUTPUTS: ReadonlyArray<{ path: string; contracts: readonly string[] }> = [
  { path: join(ROOT_DIR, 'src/modules/chain/contract-artifacts.ts'), contracts: ['BatchPayout'] },
  { path: join(CONTRACTS_DIR, 'test-contracts.ts'), contracts: ['Disperse', 'TestUSDC', 'TestWallet1271', 'TestWalletAcceptAll'] },
];
const OPTIMIZER_RUNS = 200;
// Cancun rather than solc's newer default: every chain we might pay on supports it.
const EVM_VERSION = 'cancun';

interface AbiParameter {
  name: string;
  type: string;
  internalType?: string;
  indexed?: boolean;
}

interface AbiItem {
  type: 'function' | 'constructor' | 'event' | 'error' | 'fallback' | 'receive';
  name?: string;
  inputs?: AbiParameter[];
  outputs?: AbiParameter[];
  stateMutability?: 'pure' | 'view' | 'nonpayable' | 'payable';
  anonymous?: boolean;
}

interface Artifact {
  contractName: string;
  abi: AbiItem[];
  bytecode: `0x${string}`;
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: AbiItem[]; evm: { bytecode: { object: string } } }>>;
}

const requireFromRoot = createRequire(join(ROOT_DIR, 'package.json'));

/** Resolves `@openzeppelin/...` (and any other package import) from node_modules. */
function findImport(importPath: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(requireFromRoot.resolve(importPath), 'utf8') };
  } catch {
    const local = join(CONTRACTS_DIR, importPath);
    if (existsSync(local)) return { contents: readFileSync(local, 'utf8') };
    return { error: `import not found: ${importPath}` };
  }
}

function compile(sourceFiles: string[]): SolcOutput {
  const sources = Object.fromEntries(
    sourceFiles.map((file) => [file, { content: readFileSync(join(CONTRACTS_DIR, file), 'utf8') }]),
  );
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: OPTIMIZER_RUNS },
      evmVersion: EVM_VERSION,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = solc.compile(JSON.stringify(input), { import: findImport }) as string;
  return JSON.parse(output) as SolcOutput;
}

/** One artifact per source file: the contract named like the file (interfaces are skipped). */
function collectArtifacts(output: SolcOutput, sourceFiles: string[]): Artifact[] {
  return sourceFiles.map((file) => {
    const contractName = basename(file, '.sol');
    const contract = output.contracts?.[file]?.[contractName];
    if (!contract) throw new Error(`${file} does not define contract ${contractName}`);
    return { contractName, abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  });
}

/** TestUSDC -> testUsdc, BatchPayout -> batchPayout. */
function camelName(contractName: string): string {
  const words = contractName.match(/[A-Z]+(?![a-z])|[A-Z][a-z0-9]*/g) ?? [contractName];
  return words
    .map((word, i) => (i === 0 ? word.toLowerCase() : word[0] + word.slice(1).toLowerCase()))
    .join('');
}

function parameterList(parameters: AbiParameter[] = []): string {
  return parameters.map((p) => [p.type, p.indexed ? 'indexed' : '', p.name].filter(Boolean).join(' ')).join(', ');
}

/**
 * One ABI item as a human-readable signature (viem's parseAbi reads it back, as for usdc-abi.ts):
 * `function executeBatch(bytes32 batchId, ...) returns (uint256 paidCount, ...)`.
 */
function signature(item: AbiItem): string {
  if (item.type === 'event' && item.anonymous) throw new Error(`anonymous event ${item.name}: no human-readable form`);
  if (item.type !== 'function' && item.type !== 'constructor' && item.type !== 'fallback' && item.type !== 'receive') {
    return `${item.type} ${item.name}(${parameterList(item.inputs)})`;
  }
  const head = item.type === 'function' ? `function ${item.name}` : item.type;
  const external = item.type === 'fallback' || item.type === 'receive' ? ' external' : '';
  const mutability = item.stateMutability && item.stateMutability !== 'nonpayable' ? ` ${item.stateMutability}` : '';
  const returns = item.outputs && item.outputs.length > 0 ? ` returns (${parameterList(item.outputs)})` : '';
  return `${head}(${parameterList(item.inputs)})${external}${mutability}${returns}`;
}

/**
 * solc's ABI as parseAbi gives it back: no internalType (a Solidity-only detail), and no empty name,
 * `indexed: false` or `anonymous: false` (absent means the same to viem).
 */
function withoutSolidityDetail(abi: AbiItem[]): unknown {
  const implied = (key: string, value: unknown) => key === 'internalType' || (key === 'name' && value === '') || ((key === 'indexed' || key === 'anonymous') && value === false);
  return JSON.parse(JSON.stringify(abi, (key, value: unknown) => (implied(key, value) ? undefined : value)));
}

/** The signatures of an ABI, refused unless parseAbi reads back exactly what solc wrote. */
function humanReadableAbi(artifact: Artifact): string[] {
  const signatures = artifact.abi.map(signature);
  const readBack = parseAbi(signatures);
  if (!isDeepStrictEqual(withoutSolidityDetail(readBack as unknown as AbiItem[]), withoutSolidityDetail(artifact.abi))) {
    throw new Error(`${artifact.contractName}: the human-readable ABI does not read back as solc's`);
  }
  return signatures;
}

function renderTypeScript(artifacts: Artifact[]): string {
  const header = [
    '// Generated by scripts/contracts-build.ts from contracts/*.sol. Do not edit by hand.',
    `// solc ${solc.version()}, optimizer runs ${OPTIMIZER_RUNS}, evm ${EVM_VERSION}.`,
    // The full solc ABI (with Solidity's internal types) is contracts/artifacts/<Name>.json.
    "import { parseAbi } from 'viem';",
    '',
    '',
  ];
  const blocks = artifacts.map((artifact) => {
    const name = camelName(artifact.contractName);
    // Signatures are identifiers, types and punctuation: no quote to escape.
    const signatures = humanReadableAbi(artifact).map((line) => `  '${line}',`);
    return [
      `export const ${name}Abi = parseAbi([`,
      ...signatures,
      ']);',
      '',
      `export const ${name}Bytecode = '${artifact.bytecode}' as const;`,
      '',
    ].join('\n');
  });
  return header.join('\n') + blocks.join('\n');
}

function plannedOutputs(artifacts: Artifact[]): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const artifact of artifacts) {
    const json = JSON.stringify({ contractName: artifact.contractName, abi: artifact.abi, bytecode: artifact.bytecode }, null, 2);
    outputs.set(join(ARTIFACTS_DIR, `${artifact.contractName}.json`), `${json}\n`);
  }
  for (const target of TS_OUTPUTS) {
    const selected = artifacts.filter((a) => target.contracts.includes(a.contractName));
    if (selected.length !== target.contracts.length) throw new Error(`${target.path}: expected contracts ${target.contracts.join(', ')}`);
    outputs.set(target.path, renderTypeScript(selected));
  }
  const listed = new Set(TS_OUTPUTS.flatMap((t) => t.contracts));
  const unlisted = artifacts.filter((a) => !listed.has(a.contractName)).map((a) => a.contractName);
  if (unlisted.length > 0) throw new Error(`contracts without a TypeScript output: ${unlisted.join(', ')} (add them to TS_OUTPUTS)`);
  return outputs;
}

function main(): void {
  const checkOnly = process.argv.includes('--check');
  const sourceFiles = readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith('.sol')).sort();
  const output = compile(sourceFiles);
  for (const diagnostic of output.errors ?? []) console.error(diagnostic.formattedMessage);
  if ((output.errors ?? []).some((d) => d.severity === 'error')) process.exit(1);

  const outputs = plannedOutputs(collectArtifacts(output, sourceFiles));
  const stale = [...outputs].filter(([path, text]) => !existsSync(path) || readFileSync(path, 'utf8') !== text);
  if (checkOnly) {
    for (const [path] of stale) console.error(`stale: ${path}`);
    process.exit(stale.length === 0 ? 0 : 1);
  }
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  for (const target of TS_OUTPUTS) mkdirSync(dirname(target.path), { recursive: true });
  for (const [path, text] of stale) writeFileSync(path, text);
  console.log(`compiled ${sourceFiles.length} sources with solc ${solc.version()}; ${stale.length} files updated`);
}

main();
