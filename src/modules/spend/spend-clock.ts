import { Injectable } from '@nestjs/common';

/**
 * The time spend controls read (budget periods, grant expiry, the auto top-up month). Tests stand
 * it at an instant (period boundaries, leap days) with `standAt`; otherwise it is the real time.
 */
@Injectable()
export class SpendClock {
  private fixedMs: number | null = null;

  now(): Date {
    return new Date(this.fixedMs ?? Date.now());
  }

  /** null: the real time again. */
  standAt(at: Date | null): void {
    this.fixedMs = at === null ? null : at.getTime();
  }
}
