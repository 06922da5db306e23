-- The late sweep's completed runs (litellm-late-sweep.ts): each run sweeps the slice this number
-- names and counts itself when done, so any twelve completed runs have swept the whole window
-- (the slice used to follow the clock: runs late, doubled or skipped under load left slices out).
ALTER TABLE "litellm_sync_state" ADD COLUMN "sweep_runs" BIGINT NOT NULL DEFAULT 0;
