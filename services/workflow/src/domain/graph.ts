import type { Task } from '@nap/contracts';

/** Transitions of a job: from-task id → to-task id → `{ state, type }`. */
export type Transitions = Record<string, Record<string, { type?: string; state?: string }>>;

export const START = 'workflow_start';
export const END = 'workflow_end';

/** One outgoing transition. */
export interface Edge {
  to: string;
  state: string;
  type: string;
}

/**
 * The static shape of a job's graph, computed once per job: outgoing edges, which tasks each task
 * can reach (a join waits while a running or pending task can still reach it), and the body of
 * every forEach (the tasks reachable from its `loop` transitions).
 */
export class JobGraph {
  private readonly out = new Map<string, Edge[]>();
  private readonly reach = new Map<string, Set<string>>();
  private readonly bodies = new Map<string, Set<string>>();
  /** Every task id, in the job's order: a job's tasks never change, and the scheduler walks them in every round. */
  readonly ids: readonly string[];
  /** The forEach tasks, which loops walk in every round. */
  readonly loopIds: readonly string[];

  constructor(
    readonly tasks: Readonly<Record<string, Task>>,
    transitions: Transitions | undefined,
  ) {
    this.ids = Object.keys(tasks);
    this.loopIds = this.ids.filter((id) => tasks[id]?.name === 'forEach');
    for (const [from, targets] of Object.entries(transitions ?? {})) {
      const edges: Edge[] = [];
      for (const [to, t] of Object.entries(targets ?? {})) {
        if (!Object.hasOwn(tasks, to)) continue;
        edges.push({ to, state: t?.state ?? 'success', type: t?.type ?? 'standard' });
      }
      this.out.set(from, edges);
    }
  }

  /** Outgoing edges of a task. */
  edges(from: string): readonly Edge[] {
    return this.out.get(from) ?? [];
  }

  /** Targets of the transitions of `from` taken on `state`. */
  next(from: string, state: string): string[] {
    return this.edges(from)
      .filter((e) => e.state === state)
      .map((e) => e.to);
  }

  /** Tasks reachable from `from` (not counting `from` unless a cycle returns to it); forEach loop edges do not count. */
  reachable(from: string): ReadonlySet<string> {
    let set = this.reach.get(from);
    if (set === undefined) {
      set = new Set();
      const stack = this.edges(from)
        .filter((e) => e.state !== 'loop')
        .map((e) => e.to);
      while (stack.length > 0) {
        const id = stack.pop() as string;
        if (set.has(id)) continue;
        set.add(id);
        for (const e of this.edges(id)) if (e.state !== 'loop' && !set.has(e.to)) stack.push(e.to);
      }
      this.reach.set(from, set);
    }
    return set;
  }

  /** The body of forEach `loopTask`: every task reachable from its loop transitions, the forEach and workflow_end excluded. */
  body(loopTask: string): ReadonlySet<string> {
    let set = this.bodies.get(loopTask);
    if (set === undefined) {
      set = new Set();
      const stack = this.next(loopTask, 'loop');
      while (stack.length > 0) {
        const id = stack.pop() as string;
        if (set.has(id) || id === loopTask || id === END) continue;
        set.add(id);
        for (const e of this.edges(id)) stack.push(e.to);
      }
      this.bodies.set(loopTask, set);
    }
    return set;
  }

  /** The forEach tasks whose body holds `taskId`. */
  loopsOf(taskId: string): string[] {
    return this.loopIds.filter((id) => this.next(id, 'loop').length > 0 && this.body(id).has(taskId));
  }
}
