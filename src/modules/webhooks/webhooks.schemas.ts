import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { idSchema } from '../../common/validation/fields.js';
import { PAGE_SIZE_DEFAULT } from '../../common/http/pagination.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-event-types.js';
import { WEBHOOK_URL_LENGTH_MAX } from './webhook-url-policy.js';

const eventTypes = z
  .array(z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length)
  .refine((list) => new Set(list).size === list.length, 'must not repeat a type');

const printableText = (max: number) => z.string().min(1).max(max).regex(/^[^\x00-\x1f\x7f]+$/, 'must be printable text');

export const createWebhookSchema = z
  .object({
    url: z.string().min(1).max(WEBHOOK_URL_LENGTH_MAX).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
    events: eventTypes,
    description: printableText(500).optional(),
    /** Admin only: an endpoint for that contributor (it then receives only its events). */
    contributor_id: idSchema.optional(),
  })
  .strict();
export class CreateWebhookDto extends createZodDto(createWebhookSchema) {}

/** A contributor registers for itself: the contributor comes from the path. */
export const createContributorWebhookSchema = createWebhookSchema.omit({ contributor_id: true });
export class CreateContributorWebhookDto extends createZodDto(createContributorWebhookSchema) {}

export const WEBHOOK_DELIVERIES_PAGE_MAX = 100;
export const deliveriesQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(WEBHOOK_DELIVERIES_PAGE_MAX).default(PAGE_SIZE_DEFAULT),
    cursor: z.string().max(512).optional(),
  })
  .strict();
export class DeliveriesQueryDto extends createZodDto(deliveriesQuerySchema) {}

export const webhookEndpointResponseSchema = z.object({
  id: z.string().uuid(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  contributor_id: z.string().nullable(),
  status: z.enum(['active', 'disabled']),
  disabled_reason: z.string().nullable(),
  disabled_at: z.string().nullable(),
  failing_since: z.string().nullable(),
  last_success_at: z.string().nullable(),
  created_at: z.string(),
});
export const webhookCreatedResponseSchema = webhookEndpointResponseSchema.extend({
  secret: z.string().describe('whsec_...: verify deliveries with it; shown only here'),
});
export class WebhookEndpointResponseDto extends createZodDto(webhookEndpointResponseSchema) {}
export class WebhookCreatedResponseDto extends createZodDto(webhookCreatedResponseSchema) {}

export const webhookListResponseSchema = z.object({
  data: z.array(webhookEndpointResponseSchema),
  next_cursor: z.string().nullable().describe('always null: every endpoint is on one page'),
});
export class WebhookListResponseDto extends createZodDto(webhookListResponseSchema) {}

export const webhookEventTypesResponseSchema = z.object({
  data: z.array(
    z.object({
      type: z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]),
      schema: z.unknown().describe('the JSON Schema of the event data'),
      example: z.unknown().describe('an example delivery body'),
    }),
  ),
});
export class WebhookEventTypesResponseDto extends createZodDto(webhookEventTypesResponseSchema) {}

export const webhookDeliveryResponseSchema = z.object({
  delivery_id: z.string().describe('bigint as a decimal string'),
  webhook_id: z.string().uuid(),
  event: z.object({ id: z.string(), type: z.string(), timestamp: z.string() }),
  status: z.string().describe('pending, delivered or failed'),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable().describe('null unless pending'),
  deadline_at: z.string(),
  last_attempt_at: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  last_latency_ms: z.number().nullable(),
  last_error: z.string().nullable(),
  delivered_at: z.string().nullable(),
  failed_at: z.string().nullable(),
  created_at: z.string(),
  attempt_log: z.array(
    z.object({
      attempt: z.number().int(),
      started_at: z.string(),
      finished_at: z.string().nullable(),
      status_code: z.number().int().nullable(),
      latency_ms: z.number().nullable(),
      error: z.string().nullable(),
    }),
  ),
});
export class WebhookDeliveryResponseDto extends createZodDto(webhookDeliveryResponseSchema) {}

export const webhookDeliveryListResponseSchema = z.object({ data: z.array(webhookDeliveryResponseSchema), next_cursor: z.string().nullable() });
export class WebhookDeliveryListResponseDto extends createZodDto(webhookDeliveryListResponseSchema) {}
