// The SDK's committed OpenAPI document, types and error codes are what the served /docs-json
// generates: an endpoint added or changed without `npm run sdk:generate` fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDK_GENERATE_COMMAND, sdkGeneratedFiles } from '../../scripts/lib/sdk-codegen.js';
import { testAppForSuite } from '../support/test-app.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('SDK generated code', () => {
  const t = testAppForSuite('sdk_generated');

  it('matches what the served /docs-json generates', async () => {
    const served = (await t.http.get('/docs-json').expect(200)).body as Record<string, unknown>;
    const files = await sdkGeneratedFiles(served);
    expect(Object.keys(files).length).toBeGreaterThanOrEqual(3);
    const stale = Object.entries(files)
      .filter(([path, text]) => {
        try {
          return readFileSync(join(ROOT, path), 'utf8') !== text;
        } catch {
          return true;
        }
      })
      .map(([path]) => path);
    if (stale.length > 0) throw new Error(`the SDK is behind the API (${stale.join(', ')}): run \`${SDK_GENERATE_COMMAND}\` and commit the result`);
    // The generated client knows the gateway's endpoints by path.
    expect(files['sdk/src/generated/openapi.ts']).toContain('"/v1/usage-events/stream"');
    expect(files['sdk/src/generated/error-codes.ts']).toContain('insufficient_funds: 402');
  });
});
