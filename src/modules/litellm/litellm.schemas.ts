import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { idSchema, modelSchema } from '../../common/validation/fields.js';

/** A LiteLLM deployment id (`model_info.id`): LiteLLM makes it a hash or a UUID, or the operator names it. */
export const deploymentIdSchema = modelSchema;

export const deploymentParamsSchema = z.object({ model_id: deploymentIdSchema }).strict();
export const mapDeploymentBodySchema = z.object({ contributor_id: idSchema }).strict();


/** One StandardLoggingPayload (LiteLLM litellm/types/utils.py): only the fields the ledger reads are listed. */
export const litellmPayloadSchema = z
  .object({
    id: z.string().describe('becomes event_id "litellm:" + id, or "litellm:sha256:" + hex(sha256(id)) when that would pass 256 characters'),
    call_type: z.string().optional().describe('chat and text completions, responses, embeddings are billed; others skipped'),
    status: z.enum(['success', 'failure']).optional(),
    cache_hit: z.boolean().nullable().optional(),
    endTime: z.union([z.number(), z.string()]).describe('epoch seconds, or naive "YYYY-MM-DD HH:MM:SS.ffffff" (UTC)'),
    model: z.string().optional(),
    model_id: z.string().nullable().optional().describe('the deployment (model_info.id): its mapping names the contributor'),
    model_map_information: z.object({ model_map_key: z.string() }).passthrough().optional(),
    hidden_params: z.object({ litellm_model_name: z.string().optional(), model_id: z.string().nullable().optional() }).passthrough().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    response: z.object({ usage: z.record(z.string(), z.unknown()).optional(), service_tier: z.string().optional() }).passthrough().optional(),
    prompt_tokens: z.number().int().optional(),
    completion_tokens: z.number().int().optional(),
    response_cost: z.number().optional().describe('LiteLLM\'s float estimate: kept for comparison, never billed'),
  })
  .passthrough();

export const litellmResultSchema = z.object({
  id: z.string().nullable(),
  event_id: z.string().nullable(),
  status: z.enum(['priced', 'duplicate', 'unpriced', 'unattributed', 'skipped', 'rejected']),
  reason: z
    .enum(['failure', 'cache_hit', 'unsupported_call_type', 'unreadable', 'id', 'text', 'end_time', 'model', 'model_id', 'user', 'usage', 'event', 'future', 'row_too_large'])
    .optional()
    .describe('skipped: failure, cache_hit or unsupported_call_type; rejected: the check that refused it (error says why)'),
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }).optional(),
});
export const litellmPushResponseSchema = z.object({ results: z.array(litellmResultSchema) });

export const deploymentSchema = z.object({
  model_id: z.string(),
  contributor_id: z.string().nullable().describe('null: calls of this deployment are parked unattributed'),
  unattributed_events: z.number().int().describe('calls parked for this deployment, billed when it is mapped'),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export const mapDeploymentResponseSchema = deploymentSchema.extend({ billed_events: z.number().int().describe('parked calls this mapping billed') });
export const deploymentsResponseSchema = z.object({ data: z.array(deploymentSchema) });

const rejectedCounts = {
  rejected: z.number().int().describe('entries rejected, every reason'),
  rejected_by_reason: z.record(z.string(), z.number().int()).describe('entries rejected by reason (the results\' reason)'),
};
export const litellmStatusResponseSchema = z.object({
  push: z.object({ last_at: z.string().nullable(), payloads: z.number().int(), ...rejectedCounts }),
  pull: z.object({
    ...rejectedCounts,
    enabled: z.boolean(),
    checkpoint: z.string().nullable().describe('the newest "endTime" read from LiteLLM_SpendLogs'),
    lag_seconds: z.number().int().nullable(),
    events: z.number().int().describe('calls the pull path ingested (not seen by push first)'),
  }),
});

export class MapDeploymentBodyDto extends createZodDto(mapDeploymentBodySchema) {}
export class DeploymentParamsDto extends createZodDto(deploymentParamsSchema) {}
export class LitellmPayloadDto extends createZodDto(litellmPayloadSchema) {}
export class LitellmPushResponseDto extends createZodDto(litellmPushResponseSchema) {}
export class MapDeploymentResponseDto extends createZodDto(mapDeploymentResponseSchema) {}
export class DeploymentsResponseDto extends createZodDto(deploymentsResponseSchema) {}
export class LitellmStatusResponseDto extends createZodDto(litellmStatusResponseSchema) {}
