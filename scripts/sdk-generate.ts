// npm run sdk:generate: regenerates the SDK's OpenAPI document and types from the API's own
// schemas (the document /docs-json serves), without a server or a database. Run after changing an
// endpoint; the test suite fails, naming this command, while the committed files are behind.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sdkGeneratedFiles, servedOpenApiDocument } from './lib/sdk-codegen.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = await sdkGeneratedFiles(await servedOpenApiDocument());
for (const [relativePath, text] of Object.entries(files)) {
  const target = join(root, relativePath);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${relativePath}`);
}
// The Nest app opened Redis clients (never connected); nothing else is left to wait for.
process.exit(0);
