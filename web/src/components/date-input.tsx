import { useEffect, useState } from 'react';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar day written YYYY-MM-DD (2026-02-30 is not one). */
export function isIsoDay(text: string): boolean {
  if (!DAY.test(text)) return false;
  const day = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text);
}

/**
 * A UTC day typed as YYYY-MM-DD, the one date format of the console. Not <input type="date">:
 * the browser shows that in the reader's locale (mm/dd/yyyy), unlike every other date here. The
 * value changes only when the text is a real day; anything else is marked invalid and kept.
 */
export function DateInput({ value, onChange, label }: { value: string; onChange: (day: string) => void; label: string }) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const valid = isIsoDay(draft);
  return (
    <label>
      {label}
      <input
        type="text" inputMode="numeric" placeholder="YYYY-MM-DD" pattern="\d{4}-\d{2}-\d{2}" size={10} value={draft} aria-invalid={!valid}
        onChange={(e) => {
          setDraft(e.target.value);
          if (isIsoDay(e.target.value)) onChange(e.target.value);
        }}
      />
    </label>
  );
}
