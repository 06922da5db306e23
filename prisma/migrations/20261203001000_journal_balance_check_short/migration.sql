-- The journal's balance CHECK (20261201120000) added the amounts inline for 2 to 16 postings. Postgres
-- keeps a CHECK as its node tree in text (pg_constraint.conbin: 85,373 bytes for that one) and, in
-- every statement that inserts into the table, parses that text back into nodes, simplifies it and
-- compiles it before checking the first row (ExecRelCheck). That was a fixed ~0.35-0.55 ms of
-- Postgres CPU per statement, whatever the number of rows: most of the `je` CTE's cost in a
-- single-event group commit (docs/performance-analysis.md, "The journal CHECK's fixed cost").
-- Every journal kind writes 2 to 4 postings (src/modules/ledger/journal-kinds.ts), so the inline
-- arms stop at 4 (conbin 10,250 bytes, ~0.1 ms per statement); longer arrays go to ledger_sum(), as
-- every array did before 20261201120000, and it gives the same sum. The constraint accepts exactly
-- the rows it accepted before (test/ledger/journal-balance-check.int-spec.ts compares it with the
-- original ledger_sum() = 0 check over arrays of 0 to 20 amounts, NULLs, other bounds).
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
          ELSE "ledger_sum"("amounts_atto")
        END
      ELSE "ledger_sum"("amounts_atto")
    END = 0);
