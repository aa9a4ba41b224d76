import { eventually } from '@nap/testing';
import type { LeaseClock } from '../../src/engine/lease-manager';

interface Round {
  due: number;
  everyMs: number;
  work: () => Promise<void>;
}

interface Sleeper {
  due: number;
  wake: () => void;
}

/**
 * The lease clock of the engines of a test: it stands still until the test moves it on, so whether
 * an engine is alive or dead to another is decided by how much time the test lets pass, never by
 * how fast a loaded machine runs the engines' timers. Moving it on runs every heartbeat renewal and
 * scan that falls due meanwhile, in the order they fall due, each to its end before the next (as a
 * machine that keeps up would), and wakes the sleeps that end meanwhile.
 */
export class TestClock implements LeaseClock {
  private at: number;
  private readonly rounds = new Set<Round>();
  private sleepers: Sleeper[] = [];

  constructor(start = Date.now()) {
    this.at = start;
  }

  now(): number {
    return this.at;
  }

  every(everyMs: number, work: () => Promise<void>): () => void {
    const round = { due: this.at + everyMs, everyMs, work };
    this.rounds.add(round);
    return () => this.rounds.delete(round);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((wake) => this.sleepers.push({ due: this.at + ms, wake }));
  }

  /** Lets `ms` pass: the rounds due meanwhile run one after the other, each awaited; the sleeps that end meanwhile end. */
  async advance(ms: number): Promise<void> {
    const end = this.at + ms;
    for (;;) {
      const next = this.nextDue();
      if (next === undefined || next > end) break;
      this.at = next;
      for (const round of [...this.rounds]) {
        // a round stopped by an earlier one (an engine stopping its timers) does not run
        if (round.due > this.at || !this.rounds.has(round)) continue;
        round.due += round.everyMs;
        await round.work();
      }
      const woken = this.sleepers.filter((s) => s.due <= this.at);
      this.sleepers = this.sleepers.filter((s) => s.due > this.at);
      for (const sleeper of woken) sleeper.wake();
    }
    this.at = end;
  }

  /**
   * Lets time pass only while the engines wait on this clock, until `done` settles, and answers how
   * it settled: each time something sleeps on the clock (an engine watching a heartbeat), time moves
   * on to the end of the first sleep (running the rounds due till then); while nothing sleeps, time
   * stands still. So a watch of N ms sees exactly the renewals that N ms hold, however slow the machine.
   */
  async whileWaiting<T>(done: Promise<T>, what: string): Promise<T> {
    let settled = false;
    const outcome = done.finally(() => (settled = true));
    // the outcome is awaited below; a rejection before that is not an unhandled one
    outcome.catch(() => undefined);
    for (;;) {
      await eventually(`${what}, or a sleep on the lease clock`, () => settled || this.sleepers.length > 0, { timeoutMs: 10_000 });
      if (settled) return outcome;
      const first = Math.min(...this.sleepers.map((s) => s.due));
      await this.advance(first - this.at);
    }
  }

  /**
   * Lets time flow until `done` settles, and answers how it settled: `stepMs` at a time, a step
   * each poll of `eventually`, so that what the engines do as time passes (their periodic scans,
   * which also publish what an outbox still holds) happens meanwhile. It decides no lease by the
   * machine's speed: within each step the renewals run in order with the scans, so a live engine
   * stays alive however fast the steps come.
   */
  async flowing<T>(done: Promise<T>, stepMs: number, what: string): Promise<T> {
    let settled = false;
    const outcome = done.finally(() => (settled = true));
    outcome.catch(() => undefined);
    await eventually(
      what,
      async () => {
        if (!settled) await this.advance(stepMs);
        return settled;
      },
      { timeoutMs: 10_000, intervalMs: 10 },
    );
    return outcome;
  }

  private nextDue(): number | undefined {
    const dues = [...[...this.rounds].map((r) => r.due), ...this.sleepers.map((s) => s.due)];
    return dues.length === 0 ? undefined : Math.min(...dues);
  }
}
