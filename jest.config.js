// ESM + @swc/jest: ts-jest refuses TypeScript 7-era tooling; @swc/jest compiles the decorators and
// their metadata the Nest modules need.
import { readFileSync } from 'node:fs';

const swc = JSON.parse(readFileSync(new URL('./.swcrc.jest.json', import.meta.url), 'utf8'));
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
};

const selected = (name) => process.argv.some((arg) => arg === name || arg === `--selectProjects=${name}`);
const reliabilitySelected = selected('reliability');
const consoleSelected = selected('console');
const securitySelected = selected('security');

export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/sdk/src/**/*.spec.ts'] },
    // Access-control matrix and 1,000+ bad-input cases: `npm run test:security`. A fast subset runs
    // in `npm test` as test/security/security-smoke.e2e-spec.ts.
    ...(securitySelected
      ? [
          {
            ...common,
            displayName: 'security',
            testMatch: ['<rootDir>/test/security/**/*.sec-spec.ts'],
            globalSetup: '<rootDir>/test/setup/global-setup.mjs',
            globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
            setupFiles: ['<rootDir>/test/setup/env.ts'],
          },
        ]
      : []),
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.int-spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.mjs',
      globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
      setupFiles: ['<rootDir>/test/setup/env.ts'],
    },
    // The web console in Chromium against the real stack (`npm run test:e2e`, which builds web/
    // first; .ci/run runs it after npm test and counts it): only when selected by name.
    ...(consoleSelected
      ? [
          {
            ...common,
            displayName: 'console',
            testMatch: ['<rootDir>/test/console/**/*.browser-spec.ts'],
            globalSetup: '<rootDir>/test/setup/global-setup.mjs',
            globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
            setupFiles: ['<rootDir>/test/setup/env.ts'],
            testTimeout: 120000,
          },
        ]
      : []),
    // Fault injection against the built API and worker as child processes (kill -9, own Postgres
    // and Redis restarted, Anvil faults): minutes of work, so only when selected by name
    // (`npm run test:reliability`); plain `npm test` leaves it out.
    ...(reliabilitySelected
      ? [
          {
            ...common,
            displayName: 'reliability',
            testMatch: ['<rootDir>/test/reliability/**/*.rel-spec.ts'],
            globalSetup: '<rootDir>/test/setup/global-setup.mjs',
            globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
            setupFiles: ['<rootDir>/test/setup/env.ts'],
            testTimeout: 240000,
          },
        ]
      : []),
  ],
  testTimeout: 60000,
  // Two workers on the 2-core machines, each replaced once it holds more than this after a test
  // file: ESM test modules (--experimental-vm-modules) are not released between files, and one
  // in-band process running the whole suite ran out of its 4 GB heap.
  maxWorkers: 2,
  workerIdleMemoryLimit: '1536MB',
  // How long a worker may take to end once the run is over before jest kills it and warns "A worker
  // process has failed to exit gracefully" (default 500 ms). No handle kept them alive: with every
  // handle logged, both workers' event loops were empty and their 'exit' event ran 1 and 40 ms after
  // jest asked them to end, but the processes (400-700 MB of heap, one vm context per test file)
  // were still tearing down when the 500 ms ran out on the shared 2-core machines, and jest
  // SIGTERMed them (~750 ms after the request). A worker really held open by a handle is still
  // killed and reported, after this bound instead (docs/reliability.md, "Test run exit").
  workerGracefulExitTimeout: 10_000,
};
