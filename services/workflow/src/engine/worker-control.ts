import type { WorkerKind, WorkersStatus } from '@nap/contracts';
import { failureStreak } from '@nap/telemetry';
import type { Logger } from '@nap/telemetry';
import type { ReplicaRepository } from '../store/replica-repository';
import type { WorkerSettingsRepository } from '../store/worker-settings-repository';

/** What worker control drives: the engine of this replica. */
export interface WorkerHost {
  readonly serverId: string;
  readonly ownedJobs: number;
  setWorkers(workers: { jobWorker: boolean; taskWorker: boolean }): void;
}

/**
 * The job and task workers of every engine replica, switched platform-wide: the setting is one
 * document of the workflow store (so a replica that starts later follows it), applied by each
 * replica within a second (at once when `announce` reaches it). Each replica writes a heartbeat with
 * what it applies and how many jobs it drives; the status lists those seen within two leases.
 */
export class WorkerControl {
  private timer: NodeJS.Timeout | undefined;
  private applied = { jobWorker: true, taskWorker: true };

  constructor(
    private readonly settings: WorkerSettingsRepository,
    private readonly replicas: ReplicaRepository,
    private readonly host: WorkerHost,
    private readonly leaseMs: number,
    /** Tells the other replicas to read the setting now. */
    private readonly announce: () => void,
    private readonly log: Logger,
  ) {}

  /** Applies the stored setting, then follows it and beats every second (at most). */
  async start(): Promise<void> {
    await this.refresh();
    const refreshing = failureStreak(this.log, 'Reading the worker setting and beating as a replica');
    this.timer = setInterval(
      () => void this.refresh().then(refreshing.worked, refreshing.failed),
      Math.min(1_000, Math.max(50, Math.floor(this.leaseMs / 3))),
    );
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.replicas.remove(this.host.serverId);
  }

  /** Reads the setting, applies it to this replica's engine and writes the heartbeat. */
  async refresh(): Promise<void> {
    const current = await this.settings.current();
    const next = { jobWorker: current.jobWorker, taskWorker: current.taskWorker };
    if (next.jobWorker !== this.applied.jobWorker || next.taskWorker !== this.applied.taskWorker) {
      this.log.info({ serverId: this.host.serverId, ...next }, 'Engine workers switched');
      this.applied = next;
      this.host.setWorkers(next);
    }
    await this.replicas.beat(this.host.serverId, { ...next, jobs: this.host.ownedJobs, lastSeen: Date.now() });
  }

  /** Switches a worker platform-wide and answers the status once this replica applies it. */
  async set(kind: WorkerKind, active: boolean, by: string): Promise<WorkersStatus> {
    await this.settings.set(kind, active, by, new Date().toISOString());
    await this.refresh();
    this.announce();
    return this.status();
  }

  async status(): Promise<WorkersStatus> {
    const current = await this.settings.current();
    const seen = await this.replicas.seenSince(Date.now() - 2 * this.leaseMs);
    return {
      jobWorker: { active: current.jobWorker },
      taskWorker: { active: current.taskWorker },
      replicas: seen.map((r) => ({
        serverId: r._id,
        jobWorker: r.jobWorker,
        taskWorker: r.taskWorker,
        jobs: r.jobs,
        lastSeen: r.lastSeen,
      })),
    };
  }
}
