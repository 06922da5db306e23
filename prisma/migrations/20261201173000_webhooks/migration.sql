-- Webhooks out (docs/webhooks.md) and signed gateway requests in.

-- A gateway key created with signed: true keeps its Standard Webhooks secret (whsec_...): HMAC
-- verification needs the secret itself, so unlike the key it cannot be stored as a hash.
ALTER TABLE "api_keys" ADD COLUMN "signing_secret" TEXT;

-- Where events are delivered. contributor_id set: an endpoint a contributor key registered; it
-- receives only that contributor's events. The secret signs every delivery (shown once).
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "event_types" TEXT[] NOT NULL,
    "description" TEXT,
    "contributor_id" TEXT,
    "secret" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "disabled_reason" TEXT,
    "disabled_at" TIMESTAMPTZ(6),
    "failing_since" TIMESTAMPTZ(6),
    "last_success_at" TIMESTAMPTZ(6),
    -- One dispatcher per endpoint at a time (deliveries go out in order); a dead worker's lease lapses.
    "dispatch_lease_until" TIMESTAMPTZ(6),
    "dispatch_holder" TEXT,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(6),
    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_endpoints_status" CHECK ("status" IN ('active', 'disabled', 'deleted')),
    CONSTRAINT "webhook_endpoints_events" CHECK (cardinality("event_types") >= 1)
);
CREATE INDEX "webhook_endpoints_contributor_idx" ON "webhook_endpoints" ("contributor_id") WHERE "status" <> 'deleted';

-- The outbox: written in the same transaction as the fact it announces, so an event exists if and
-- only if its fact committed. message_id is the webhook-id every delivery and retry carries.
-- for_admin: admin endpoints receive it; contributor_id: that contributor's endpoints receive it.
CREATE TABLE "webhook_events" (
    "id" BIGSERIAL NOT NULL,
    "message_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(6) NOT NULL,
    "data" JSONB NOT NULL,
    "contributor_id" TEXT,
    "for_admin" BOOLEAN NOT NULL,
    -- Facts that may be announced from more than one place or run (a retried job) carry a key.
    "dedupe_key" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "relayed_at" TIMESTAMPTZ(6),
    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_events_audience" CHECK ("for_admin" OR "contributor_id" IS NOT NULL)
);
CREATE UNIQUE INDEX "webhook_events_message_id_key" ON "webhook_events" ("message_id");
CREATE UNIQUE INDEX "webhook_events_dedupe_key_key" ON "webhook_events" ("dedupe_key");
CREATE INDEX "webhook_events_unrelayed_idx" ON "webhook_events" ("id") WHERE "relayed_at" IS NULL;

-- One event for one endpoint: retried until delivered or past deadline_at (WEBHOOK_RETRY_HOURS).
CREATE TABLE "webhook_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" BIGINT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deadline_at" TIMESTAMPTZ(6) NOT NULL,
    "last_attempt_at" TIMESTAMPTZ(6),
    "last_status_code" INTEGER,
    "last_latency_ms" INTEGER,
    "last_error" TEXT,
    "delivered_at" TIMESTAMPTZ(6),
    "failed_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_deliveries_status" CHECK ("status" IN ('pending', 'delivered', 'failed')),
    CONSTRAINT "webhook_deliveries_endpoint_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints" ("id"),
    CONSTRAINT "webhook_deliveries_event_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_events" ("id")
);
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_event_key" ON "webhook_deliveries" ("endpoint_id", "event_id");
-- The dispatcher's next delivery per endpoint, in event order.
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" ("endpoint_id", "event_id") WHERE "status" = 'pending';
-- The relay's "which endpoints have work due".
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("next_attempt_at") WHERE "status" = 'pending';

-- The delivery log: one row per attempt, written when it starts (an attempt a crash cut off shows
-- as unfinished) and completed with the answer.
CREATE TABLE "webhook_attempts" (
    "id" BIGSERIAL NOT NULL,
    "delivery_id" BIGINT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(6),
    "status_code" INTEGER,
    "latency_ms" INTEGER,
    "error" TEXT,
    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_attempts_delivery_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries" ("id")
);
CREATE UNIQUE INDEX "webhook_attempts_delivery_attempt_key" ON "webhook_attempts" ("delivery_id", "attempt");
