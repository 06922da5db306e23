-- Credit grants that expire (issue 37, docs/spend-controls.md "Credit grants"). Each grant is its
-- own tracked ledger account (grant:<grant_id>, kind user_grant).
--
-- grants_until on a user's account row: the latest expires_at of the user's grants (null: never
-- had one). The usage write returns it from the balance upsert it already runs, so a charge of a
-- user without an unexpired grant costs no extra statement; a user with one takes the
-- transaction path, which draws from the grants under the same account lock.
ALTER TABLE "accounts" ADD COLUMN "grants_until" TIMESTAMPTZ(6);

-- Raised by the one-statement usage write when a billed user has an unexpired grant: the whole
-- statement rolls back (nothing was written) and the writer retries on the transaction path.
CREATE FUNCTION "usage_grants_take_transaction_path"(user_code text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
BEGIN
  RAISE EXCEPTION 'account % has unexpired credit grants', user_code USING ERRCODE = 'LG001';
END
$$;

-- The platform's cost of grants (untracked like every platform account: the other side of each
-- grant's funding). Breakage goes to platform:revenue.
INSERT INTO "accounts" ("code", "kind", "owner_id", "tracked") VALUES ('platform:promotions', 'platform', NULL, false)
ON CONFLICT ("code") DO NOTHING;
