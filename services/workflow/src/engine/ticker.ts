/** What a {@link Ticker} runs, and when. */
export interface TickerOptions {
  /** Runs `work` every `everyMs` while started (the timer does not keep the process alive). */
  everyMs: number;
  /** One round of the loop's work. */
  work: () => Promise<void>;
  /** A round that failed: logged by the owner; the next tick tries again. */
  onError: (err: unknown) => void;
  /** False: a tick does nothing now (a switch that holds the loop without stopping it). */
  ready?: () => boolean;
}

/**
 * The timer loop of the engine's background parts (schedules, retention, archiving): a round at
 * start, then every `everyMs`, rounds never overlapping (a tick while one runs answers that round),
 * `wake` for a round now rather than at the next tick, and `stop` that waits for the round under way.
 */
export class Ticker {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private halted = true;

  constructor(private readonly options: TickerOptions) {}

  /** True before `start` and after `stop`: work under way ends at its next safe point. */
  get stopped(): boolean {
    return this.halted;
  }

  start(): void {
    this.halted = false;
    this.timer = setInterval(() => void this.tick(), this.options.everyMs);
    this.timer.unref();
    void this.tick();
  }

  /** Stops the timer and waits for the round under way. */
  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  /** One round now, unless one runs (then that one is answered) or the loop is stopped or not ready. */
  tick(): Promise<void> {
    const { work, onError, ready } = this.options;
    if (this.halted || this.ticking !== undefined || (ready !== undefined && !ready())) return this.ticking ?? Promise.resolve();
    this.ticking = work()
      .catch(onError)
      .finally(() => {
        this.ticking = undefined;
        if (this.again && !this.halted) {
          this.again = false;
          void this.tick();
        }
      });
    return this.ticking;
  }

  /** A round now rather than at the next tick; while one runs, another right after it. */
  wake(): void {
    if (this.ticking !== undefined) this.again = true;
    else void this.tick();
  }
}
