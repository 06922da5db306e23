-- Refunds after archive (issue 24 item 3, docs/history.md). A refund of an archived event reads
-- its user, contributor, charge and payout from its usage journal entry (kind 'usage', ref =
-- event id) and its occurred_at from usage_event_keys; the one fact it needs that neither holds is
-- the model (a refund is summed per contributor, day and model in contributor_refunds_daily).
-- npm run archive keeps it here, per archived priced event, in the transaction that drops the
-- month: event_id and model (tens of bytes per event, beside the ~400 the archive reclaims).
-- Months archived before this table existed have no rows here: a refund then takes the model from
-- usage_archived_rollups when the contributor had one model that day (docs/history.md).
CREATE TABLE "usage_archived_events" (
    "event_id" TEXT NOT NULL,
    "month" DATE NOT NULL,
    "model" TEXT NOT NULL,
    CONSTRAINT "usage_archived_events_pkey" PRIMARY KEY ("event_id"),
    CONSTRAINT "usage_archived_events_month_fkey" FOREIGN KEY ("month") REFERENCES "usage_archives"("month") ON DELETE RESTRICT ON UPDATE CASCADE
);
