// The app's clock and GitHub's, moved on together (the app's by `now`, GitHub's by the
// emulator's clock): tests of `budget.per-day` start at noon UTC, so a test's day never
// straddles midnight, and move to the next day when they mean to.
import type { Harness } from './harness.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export function dayClocks() {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    moveOn(h: Pick<Harness, 'emu'>, ms: number) {
      offset += ms;
      h.emu.clock.advance(ms);
    },
    /** Moves both clocks to the next 12:00 UTC. */
    toNoon(h: Pick<Harness, 'emu'>) {
      const now = Date.now() + offset;
      const noon = Math.floor(now / DAY_MS) * DAY_MS + 12 * HOUR_MS;
      this.moveOn(h, (noon > now ? noon : noon + DAY_MS) - now);
    },
  };
}
