-- The journal's balance CHECK called ledger_sum(), a SQL function over unnest() with an aggregate:
-- Postgres cannot inline that, so every journal row inserted ran it as a function call (~3 us of
-- the ~28 us of Postgres CPU per ingested event). The constraint now adds the amounts in the
-- expression itself for the arrays the ledger writes (one dimension from index 1, 2 to 16
-- postings: POSTINGS_PER_ENTRY_MAX in src/modules/ledger/journal-draft.ts) and keeps ledger_sum()
-- for any other array, so it accepts exactly the rows it accepted before
-- (test/integration/journal-balance-check.int-spec.ts). (Inlining a rewritten ledger_sum() instead
-- was tried: Postgres re-parses an inlined SQL function's body at every statement, which cost
-- small group commits more than it saved.)
-- Re-adding the constraint checks every existing row once, under this migration's lock.
ALTER TABLE "journal_entries" DROP CONSTRAINT "journal_entries_balanced";
ALTER TABLE "journal_entries" ADD CONSTRAINT "journal_entries_balanced" CHECK (
    cardinality("account_codes") >= 2
    AND cardinality("account_codes") = cardinality("amounts_atto")
    AND array_position("amounts_atto", NULL) IS NULL
    AND CASE
      WHEN array_ndims("amounts_atto") = 1 AND array_lower("amounts_atto", 1) = 1 THEN
        CASE cardinality("amounts_atto")
          WHEN 2 THEN "amounts_atto"[1] + "amounts_atto"[2]
          WHEN 3 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3]
          WHEN 4 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4]
          WHEN 5 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5]
          WHEN 6 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6]
          WHEN 7 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6] + "amounts_atto"[7]
          WHEN 8 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6] + "amounts_atto"[7] + "amounts_atto"[8]
          WHEN 9 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6] + "amounts_atto"[7] + "amounts_atto"[8] + "amounts_atto"[9]
          WHEN 10 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6] + "amounts_atto"[7] + "amounts_atto"[8] + "amounts_atto"[9] + "amounts_atto"[10]
          WHEN 11 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6] + "amounts_atto"[7] + "amounts_atto"[8] + "amounts_atto"[9] + "amounts_atto"[10] + "amounts_atto"[11]
          WHEN 12 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6] + "amounts_atto"[7] + "amounts_atto"[8] + "amounts_atto"[9] + "amounts_atto"[10] + "amounts_atto"[11] + "amounts_atto"[12]
          WHEN 13 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6] + "amounts_atto"[7] + "amounts_atto"[8] + "amounts_atto"[9] + "amounts_atto"[10] + "amounts_atto"[11] + "amounts_atto"[12] + "amounts_atto"[13]
          WHEN 14 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6] + "amounts_atto"[7] + "amounts_atto"[8] + "amounts_atto"[9] + "amounts_atto"[10] + "amounts_atto"[11] + "amounts_atto"[12] + "amounts_atto"[13] + "amounts_atto"[14]
          WHEN 15 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6] + "amounts_atto"[7] + "amounts_atto"[8] + "amounts_atto"[9] + "amounts_atto"[10] + "amounts_atto"[11] + "amounts_atto"[12] + "amounts_atto"[13] + "amounts_atto"[14] + "amounts_atto"[15]
          WHEN 16 THEN "amounts_atto"[1] + "amounts_atto"[2] + "amounts_atto"[3] + "amounts_atto"[4] + "amounts_atto"[5] + "amounts_atto"[6] + "amounts_atto"[7] + "amounts_atto"[8] + "amounts_atto"[9] + "amounts_atto"[10] + "amounts_atto"[11] + "amounts_atto"[12] + "amounts_atto"[13] + "amounts_atto"[14] + "amounts_atto"[15] + "amounts_atto"[16]
          ELSE "ledger_sum"("amounts_atto")
        END
      ELSE "ledger_sum"("amounts_atto")
    END = 0);
