// Run by test/observability/tracing-off.int-spec.ts in a fresh node process: starts tracing with the
// process's environment and prints which @opentelemetry packages Node then has loaded.
import { createRequire } from 'node:module';

const { startTracing } = await import(process.argv[2]);
const on = await startTracing('api', process.env);
const packageOf = (path) => path.split('node_modules/').pop().split('/').slice(0, 2).join('/');
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('/node_modules/@opentelemetry/'));
console.log(JSON.stringify({ on, packages: [...new Set(loaded.map(packageOf))].sort() }));
process.exit(0);
