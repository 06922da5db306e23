import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { cleanupOpenApiDoc } from 'nestjs-zod';
import { AppModule } from './app.module.js';
import { registerBodyParser } from './common/http/body-parsers.js';
import { shareRepeatedSchemas } from './common/openapi/shared-schemas.js';
import { ApiLogController, createApiLogger, PinoNestLogger, requestIdOf } from './common/logging/api-logger.js';
import { sendError } from './common/errors/error-body.js';
import { answerClientErrorAsJson } from './common/http/client-errors.js';
import { registerConsole } from './common/http/console-static.js';
import { recordServedRoutes } from './common/http/served-routes.js';
import { refuseNulInUrl } from './common/http/url-guard.js';
import { registerTraceparent } from './common/tracing/http-tracing.js';
import { parseEnv } from './config/index.js';
import { recordRequestMetrics } from './modules/health/request-metrics.js';
import { MetricsService } from './modules/health/metrics.service.js';
import { registerLeanIngestRoute } from './modules/usage/usage-ingest-route.js';

/** Longest path parameter the router matches; longer ids still reach validation (a 400, not a 404). */
const PATH_PARAM_LENGTH_MAX = 2048;
/** Node's own default: a request must arrive whole within 5 minutes (slow-client protection). */
const REQUEST_TIMEOUT_MS = 300_000;

function routerErrorMessage(code: string): string {
  if (code === 'FST_ERR_MAX_PARAM_LENGTH') return `a path parameter exceeds ${PATH_PARAM_LENGTH_MAX} characters`;
  if (code === 'FST_ERR_BAD_URL') return 'is not a valid percent-encoded URL';
  return 'cannot be routed';
}

/**
 * Builds the HTTP app (used by main.ts and the e2e tests alike). Fastify rather than Express: on
 * this API's ingestion path Express's router and body parser cost several times Fastify's.
 */
export async function createHttpApp(envOverrides: Partial<Record<string, string>> = {}): Promise<NestFastifyApplication> {
  const config = parseEnv({ ...process.env, ...envOverrides });
  const logger = createApiLogger(config.LOG_LEVEL);
  const adapter = new FastifyAdapter({
    // Express matched paths case-insensitively and ignored a trailing slash; clients rely on it.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: PATH_PARAM_LENGTH_MAX },
    // As Express's numeric `trust proxy`: the nearest N hops are our proxies.
    trustProxy: config.TRUST_PROXY_HOPS === 0 ? false : (_address: string, hop: number) => hop < config.TRUST_PROXY_HOPS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    loggerInstance: logger,
    logController: new ApiLogController(),
    // The caller's X-Request-Id when well-formed (checked in requestIdOf), else a UUID.
    requestIdHeader: false,
    genReqId: requestIdOf,
    clientErrorHandler: answerClientErrorAsJson,
    // A URL the router cannot decode (%zz) or an over-long path parameter: the api.md error shape.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => sendError(reply, 400, 'validation_failed', 'request validation failed', [{ field: '(url)', message: routerErrorMessage(error.code) }]),
  });
  const fastify = adapter.getInstance();
  recordServedRoutes(fastify);
  registerTraceparent(fastify);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(envOverrides), adapter, {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(new PinoNestLogger(logger));
  recordRequestMetrics(fastify, app.get(MetricsService));
  refuseNulInUrl(fastify);
  registerBodyParser(fastify, config.BODY_LIMIT_BYTES, config.STREAM_BODY_LIMIT_BYTES);
  // Before app.init() registers the routes: POST /v1/usage-events skips Nest's per-request pipeline.
  registerLeanIngestRoute(fastify, app);
  app.enableShutdownHooks();

  const document = new DocumentBuilder()
    .setTitle('Contributor billing and settlement ledger')
    .setDescription('Bills completed chat-completion streams, credits contributors, pays USDC. Money is a decimal string in USD.')
    .setVersion('1')
    .addBearerAuth()
    .build();
  SwaggerModule.setup('docs', app, shareRepeatedSchemas(cleanupOpenApiDoc(SwaggerModule.createDocument(app, document))), {
    jsonDocumentUrl: 'docs-json',
  });
  // The web console (web/, api.md "Web console"): static files under a strict CSP.
  registerConsole(fastify, { directory: config.CONSOLE_DIR, explorerTxUrl: config.CHAIN_EXPLORER_TX_URL });
  return app;
}
