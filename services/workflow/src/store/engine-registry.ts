import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Collection } from '@nap/store';

/** True when a process with this pid runs on this host. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One engine process as the others see it: its heartbeat (`beat`, counted up every renewal, and
 * `at`, the writer's clock, for people reading the collection) and who runs it. `instance` is random
 * per process, so that two processes that were given the same engine id notice each other.
 */
export type EngineRecord = {
  _id: string;
  instance: string;
  beat: number;
  at: number;
  started: number;
  host: string;
  pid: number;
  leaseMs: number;
  /** The engine stopped cleanly: its jobs may be taken over at once. */
  stopped?: boolean;
};

/** What a renewal found. */
export type BeatOutcome = 'renewed' | 'registered' | 'taken';

/**
 * The `engines` collection: one small document per engine process. Renewing a lease is one update
 * of that document, however many jobs the engine drives; jobs name their engine (`lease`), and an
 * engine whose heartbeat stops is dead to the others.
 */
export class EngineRegistry {
  constructor(private readonly engines: Collection<EngineRecord>) {}

  find(id: string): Promise<EngineRecord | null> {
    return this.engines.findOne({ _id: id });
  }

  all(): Promise<EngineRecord[]> {
    return this.engines.find({});
  }

  /** Makes `record` the engine of its id (replacing what a previous process of that id left). */
  async register(record: EngineRecord): Promise<void> {
    await this.engines.replaceOne({ _id: record._id }, record, { upsert: true });
  }

  /**
   * Counts the heartbeat of engine `id` up: `renewed`; `registered` when its document was gone
   * (removed as dead while the engine was stalled) and is written again; `taken` when another
   * process registered the same id since, which must then stop driving jobs.
   */
  async beat(record: EngineRecord, now: number): Promise<BeatOutcome> {
    const res = await this.engines.updateOne({ _id: record._id, instance: record.instance }, { $inc: { beat: 1 }, $set: { at: now } });
    if (res.matchedCount > 0) return 'renewed';
    const current = await this.find(record._id);
    if (current !== null) return 'taken';
    await this.register({ ...record, at: now, stopped: false });
    return 'registered';
  }

  /** Marks the engine stopped (a clean shutdown): others take its jobs over at once. */
  async markStopped(id: string, instance: string, now: number): Promise<void> {
    await this.engines.updateOne({ _id: id, instance }, { $set: { stopped: true, at: now } });
  }

  /**
   * The engines that run now, as their heartbeats say, whatever the clocks of their hosts: those not
   * stopped cleanly whose heartbeat moves within `watchMs` (read twice), less those of this host whose
   * process is gone. Answers at once when every engine stopped cleanly.
   */
  async running(watchMs: number): Promise<EngineRecord[]> {
    const here = hostname();
    const candidates = (await this.all()).filter((e) => e.stopped !== true && !(e.host === here && !processAlive(e.pid)));
    if (candidates.length === 0) return [];
    // a timer that holds the process: a tool (nap-data) may have nothing else to wait for
    await sleep(watchMs);
    const later = new Map((await this.all()).map((e) => [e._id, e]));
    return candidates.flatMap((e) => {
      const now = later.get(e._id);
      return now !== undefined && now.stopped !== true && (now.beat !== e.beat || now.instance !== e.instance) ? [now] : [];
    });
  }

  /** Removes the document of a dead engine that holds no job any more, unless it beat again meanwhile. */
  async removeDead(id: string, beat: number | undefined): Promise<void> {
    await this.engines.deleteOne(beat === undefined ? { _id: id } : { _id: id, beat });
  }
}
