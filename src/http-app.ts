import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { cleanupOpenApiDoc } from 'nestjs-zod';
import { AppModule } from './app.module.js';
import { jsonBodyMiddleware } from './common/http/body-parsers.js';
import { answerClientErrorsAsJson } from './common/http/client-errors.js';
import { refuseNulInUrl } from './common/http/url-guard.js';
import { APP_CONFIG, type AppConfig } from './config/index.js';
import { metricsMiddleware } from './modules/health/metrics.middleware.js';
import { MetricsService } from './modules/health/metrics.service.js';

/** Builds the HTTP app (used by main.ts and the e2e tests alike). */
export async function createHttpApp(envOverrides: Partial<Record<string, string>> = {}): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(envOverrides), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  const config = app.get<AppConfig>(APP_CONFIG);
  app.disable('x-powered-by');
  // API responses are not cached by clients; an ETag would cost a hash of every body.
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY_HOPS === 0 ? false : config.TRUST_PROXY_HOPS);
  answerClientErrorsAsJson(app.getHttpServer());
  app.use(metricsMiddleware(app.get(MetricsService)));
  app.use(refuseNulInUrl());
  app.use(jsonBodyMiddleware(config.BODY_LIMIT_BYTES));
  app.enableShutdownHooks();

  const document = new DocumentBuilder()
    .setTitle('Contributor billing and settlement ledger')
    .setDescription('Bills completed chat-completion streams, credits contributors, pays USDC. Money is a decimal string in USD.')
    .setVersion('1')
    .addBearerAuth()
    .build();
  SwaggerModule.setup('docs', app, cleanupOpenApiDoc(SwaggerModule.createDocument(app, document)), {
    jsonDocumentUrl: 'docs-json',
  });
  return app;
}
