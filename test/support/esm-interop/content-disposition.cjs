// @fastify/static (CommonJS; it serves the OpenAPI UI) requires content-disposition, which is
// ESM-only. Node 20.19+ loads it natively (require(esm)); Jest's module system cannot on Node 20,
// so Jest is pointed here and this file asks Node's own loader for the real package.
const { createRequire } = require('node:module');
const fastifyStaticEntry = require.resolve('@fastify/static');
module.exports = createRequire(fastifyStaticEntry)('content-disposition');
