// @fastify/static (CommonJS; it serves the OpenAPI UI) requires content-disposition. The lockfile
// pins 2.x (CommonJS, package.json overrides), but a node_modules installed before that holds 3.x,
// which is ESM-only: Node 20.19+ loads it natively (require(esm)), Jest's module system cannot on
// Node 20, so Jest is pointed here and this file asks Node's own loader for the installed package.
// Once every checkout is reinstalled from the lockfile (npm ci), this file and its mapping can go.
const { createRequire } = require('node:module');
const fastifyStaticEntry = require.resolve('@fastify/static');
module.exports = createRequire(fastifyStaticEntry)('content-disposition');
