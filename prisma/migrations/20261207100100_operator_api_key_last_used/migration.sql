-- GET /v1/admin/api-keys shows when each key was last used (api.md "Keys"). Written on a key
-- lookup at most once a minute per key (src/modules/auth/auth.service.ts), never per request.
ALTER TABLE "api_keys" ADD COLUMN IF NOT EXISTS "last_used_at" TIMESTAMPTZ(6);
-- The listing, newest first, optionally per role or contributor.
CREATE INDEX IF NOT EXISTS "api_keys_created_at_id_idx" ON "api_keys" ("created_at" DESC, "id" DESC);
