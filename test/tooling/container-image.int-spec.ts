// The production image and the compose stack, checked statically (no container engine on these
// machines): stages, production dependencies only, a non-root user, the health check, HOST, and a
// compose file whose api and worker get the local chain's contract addresses from the one-shot
// deployment.
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

interface Stage {
  name: string;
  base: string;
  instructions: Array<{ op: string; args: string }>;
}

/** Dockerfile instructions per stage (line continuations joined, comments dropped). */
function stagesOf(dockerfile: string): Stage[] {
  const stages: Stage[] = [];
  const lines = dockerfile.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  for (const line of lines) {
    const [op = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op.toUpperCase() === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      stages.push({ base: match![1]!, name: match![2] ?? String(stages.length), instructions: [] });
    } else {
      stages.at(-1)!.instructions.push({ op: op.toUpperCase(), args });
    }
  }
  return stages;
}

describe('Dockerfile', () => {
  const stages = stagesOf(read('Dockerfile'));
  const runtime = stages.at(-1)!;
  const ops = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op).map((i) => i.args);

  it('builds in stages and ships a runtime stage of its own', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'prod-deps', 'runtime']);
    expect(new Set(stages.map((s) => s.base)).size).toBe(1);
    expect(runtime.base).toMatch(/^node:22/);
    // Nothing is built or installed in the runtime stage: it only copies.
    expect(ops(runtime, 'RUN')).toEqual([]);
  });

  it('has production dependencies only in the runtime stage', () => {
    const prodDeps = stages.find((s) => s.name === 'prod-deps')!;
    expect(ops(prodDeps, 'RUN').join(' ')).toMatch(/npm ci --omit=dev/);
    const copies = ops(runtime, 'COPY');
    expect(copies).toContain('--from=prod-deps /app/node_modules ./node_modules');
    expect(copies.filter((c) => c.includes('node_modules'))).toHaveLength(1);
    // The build stage's tree (with dev dependencies) never reaches it.
    expect(copies.filter((c) => c.startsWith('--from=build')).map((c) => c.split(' ')[1])).toEqual([
      '/app/package.json',
      '/app/dist',
      '/app/dist-migrate',
      '/app/web/dist',
      '/app/prisma/migrations',
    ]);
  });

  it('runs as a non-root user, listens on all interfaces and checks readiness', () => {
    expect(ops(runtime, 'USER')).toEqual(['node']);
    const env = ops(runtime, 'ENV').join(' ');
    expect(env).toMatch(/\bHOST=0\.0\.0\.0\b/);
    expect(env).toMatch(/\bNODE_ENV=production\b/);
    const [healthcheck] = ops(runtime, 'HEALTHCHECK');
    expect(healthcheck).toMatch(/^--interval=\S+ .*CMD \[/);
    expect(healthcheck).toContain('/health/ready');
    // Started by node itself (not npm): signals reach the process, no npm in the runtime's path.
    expect(JSON.parse(ops(runtime, 'CMD')[0]!)).toEqual(['node', '--max-old-space-size=160', '--liftoff-only', 'dist/src/main.js']);
  });

  it('keeps dependencies, builds and secrets out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const path of ['node_modules', 'dist', 'web/dist', 'src/generated', '.devchain.env']) expect(ignored).toContain(path);
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml')) as { services: Record<string, { build?: unknown; command?: string[]; environment?: Record<string, string>; volumes?: string[]; depends_on?: Record<string, { condition: string }> }> };
  const { services } = compose;

  it('deploys the contracts once at start and hands their addresses to api and worker', () => {
    const contracts = services.contracts!;
    expect(contracts.build).toEqual({ context: '.', target: 'build' });
    expect(contracts.command).toEqual(['sh', 'scripts/devchain.sh', '--rpc-url', 'http://anvil:8545', '--env-file', '/chain/chain.env']);
    expect(existsSync(new URL('scripts/devchain.sh', root))).toBe(true);
    expect(contracts.volumes).toEqual(['chain:/chain']);
    for (const name of ['api', 'worker']) {
      const service = services[name]!;
      expect(service.command).toContain('--env-file=/chain/chain.env');
      expect(service.volumes).toEqual(['chain:/chain:ro']);
      expect(service.depends_on?.contracts).toEqual({ condition: 'service_completed_successfully' });
      expect(service.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
      // Set here, an empty value would win over the deployed file's (node --env-file does not override).
      for (const key of ['RPC_URL', 'USDC_ADDRESS', 'PAYOUT_CONTRACT_ADDRESS', 'PAYOUT_PRIVATE_KEY']) expect(service.environment).not.toHaveProperty(key);
    }
  });

  it('migrates with the runner the image carries', () => {
    expect(services.migrate!.command).toEqual(['node', 'dist-migrate/migrate.js']);
    expect(read('Dockerfile')).toContain('scripts/migrate.ts --outDir dist-migrate');
  });
});
