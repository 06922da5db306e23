// The standard OpenTelemetry variables this service reads itself (the SDK reads the rest, e.g.
// OTEL_BSP_*, OTEL_RESOURCE_ATTRIBUTES). Parsed apart from config.schema.ts because tracing starts
// before anything else is imported: this file must load nothing but zod.
import { z } from 'zod';

/** The samplers of the specification that the Node SDK builds from OTEL_TRACES_SAMPLER. */
export const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

const tracingEnvSchema = z.object({
  /** Off unless set: the OTLP/HTTP base URL (`/v1/traces` is appended, as the specification says). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** A traces-only endpoint, used as is (the SDK's own precedence). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(['http/protobuf', 'http/json']).optional(),
  OTEL_SERVICE_NAME: z.string().trim().min(1).max(200).optional(),
  OTEL_TRACES_SAMPLER: z.enum(TRACES_SAMPLERS).default('parentbased_always_on'),
  /** Outgoing URLs in spans keep scheme, host and port only unless this is true (then the path too, never the query). */
  OTEL_RECORD_URL_PATHS: z.enum(['true', 'false']).default('false'),
});

export interface TracingConfig {
  /** Where spans go; null when tracing is off. */
  endpoint: string | null;
  protocol: 'http/protobuf' | 'http/json';
  serviceName: string | undefined;
  sampler: (typeof TRACES_SAMPLERS)[number];
  /** OTEL_RECORD_URL_PATHS (common/tracing/url-redaction.ts). */
  recordUrlPaths: boolean;
}

/** Throws an Error naming the bad variable (start-up stops, as for every other variable). */
export function parseTracingEnv(source: NodeJS.ProcessEnv): TracingConfig {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([key, value]) => key.startsWith('OTEL_') && value !== undefined && value !== ''));
  const result = tracingEnvSchema.safeParse(cleaned);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    // Named as config.schema.ts's ConfigError (not imported: that module loads ioredis).
    throw Object.assign(new Error(`invalid environment: ${problems.join('; ')}`), { name: 'ConfigError' });
  }
  const env = result.data;
  return {
    endpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
    protocol: env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL,
    serviceName: env.OTEL_SERVICE_NAME,
    sampler: env.OTEL_TRACES_SAMPLER,
    recordUrlPaths: env.OTEL_RECORD_URL_PATHS === 'true',
  };
}
