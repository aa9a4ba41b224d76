/** Which of this engine's workers run; both do until worker control says otherwise. */
export interface WorkerState {
  jobWorker: boolean;
  taskWorker: boolean;
}

/**
 * This engine's job and task workers as worker control last set them, read by the parts that claim
 * jobs (lease manager, job lifecycle, schedules) and start tasks (runners).
 */
export class WorkerSwitches {
  private state: WorkerState = { jobWorker: true, taskWorker: true };

  /** False while the job worker is deactivated: this engine claims no job (new jobs wait unclaimed). */
  get claimsJobs(): boolean {
    return this.state.jobWorker;
  }

  /** False while the task worker is deactivated: tasks in flight finish, no task starts. */
  get startsTasks(): boolean {
    return this.state.taskWorker;
  }

  /** Sets both workers; answers which of them this switched on. */
  set(next: WorkerState): { jobWorkerOn: boolean; taskWorkerOn: boolean } {
    const before = this.state;
    this.state = { ...next };
    return { jobWorkerOn: next.jobWorker && !before.jobWorker, taskWorkerOn: next.taskWorker && !before.taskWorker };
  }
}
