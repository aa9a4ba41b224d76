import type { Task } from '@nap/contracts';

/** Transitions of a job: from-task id → to-task id → `{ state, type }`. */
export type Transitions = Record<string, Record<string, { type?: string; state?: string }>>;

export const START = 'workflow_start';
export const END = 'workflow_end';

/** The targets of a task that takes no transition on a state. */
const NONE: readonly string[] = Object.freeze([]);

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
    // for…in rather than Object.entries: no list of pairs made for every task of every job started
    const all = transitions ?? {};
    for (const from in all) {
      if (!Object.hasOwn(all, from)) continue;
      const targets = all[from];
      const edges: Edge[] = [];
      for (const to in targets) {
        if (!Object.hasOwn(targets, to) || !Object.hasOwn(tasks, to)) continue;
        const t = targets[to];
        edges.push({ to, state: t?.state ?? 'success', type: t?.type ?? 'standard' });
      }
      this.out.set(from, edges);
    }
  }

  /** Outgoing edges of a task. */
  edges(from: string): readonly Edge[] {
    return this.out.get(from) ?? [];
  }

  /** Targets of the transitions of `from` taken on `state` (a list of its own, or a shared empty one: read it only). */
  next(from: string, state: string): readonly string[] {
    const edges = this.out.get(from);
    if (edges === undefined) return NONE;
    // a loop rather than a filter and a map: called at every task's end
    let targets: string[] | undefined;
    for (const edge of edges) if (edge.state === state) (targets ??= []).push(edge.to);
    return targets ?? NONE;
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
      const stack = [...this.next(loopTask, 'loop')];
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
