import { errorMessage, isRecord, merged } from '@nap/util';
import { needArray } from '../domain/builtins/types';
import { errorOutcome } from '../domain/task-outcome';
import type { JobState } from './job-state';

/**
 * forEach: the tasks reachable from a forEach's `loop` transitions (its body) run once per item of
 * `data_array`, one item after the other; `current_item` is the item of the iteration. The forEach
 * stays running while its body runs and finishes (success, the last item as `current_item`) after
 * the last iteration.
 */
export class Loops {
  constructor(private readonly state: JobState) {}

  /** Starts a forEach with its resolved incoming values. */
  start(id: string, incoming: Record<string, unknown>): void {
    let items: unknown[];
    try {
      items =
        incoming.data_array === '' || incoming.data_array === null || incoming.data_array === undefined
          ? []
          : needArray(incoming.data_array, 'data_array');
    } catch (err) {
      this.state.complete(id, errorOutcome(errorMessage(err)));
      return;
    }
    const task = this.state.task(id);
    if (items.length === 0 || this.state.graph.next(id, 'loop').length === 0) {
      delete task.loop;
      this.state.complete(id, { finishState: 'success', outgoing: { current_item: null } });
      return;
    }
    task.loop = { items, index: 0 };
    this.beginIteration(id);
  }

  /** Moves every forEach whose body has nothing left to its next item, or past its last one; true when one moved. */
  advance(): boolean {
    const { job, graph } = this.state;
    if (this.state.isFailing()) return false;
    let progressed = false;
    for (const id of graph.loopIds) {
      const task = job.tasks[id];
      const loop = task?.loop;
      if (task === undefined || task.status !== 'running' || loop === undefined || !isRecord(loop)) continue;
      const busy = [...graph.body(id)].some((member) => {
        const status = job.tasks[member]?.status;
        return status === 'running' || status === 'pending';
      });
      if (busy) continue;
      if (job.status !== 'running') continue;
      if (loop.index + 1 < loop.items.length) {
        loop.index += 1;
        this.beginIteration(id);
      } else {
        delete task.loop;
        this.state.complete(id, { finishState: 'success', outgoing: { current_item: loop.items[loop.index] ?? null } });
      }
      progressed = true;
    }
    return progressed;
  }

  /** Resets the body, sets `current_item` and starts the tasks of the loop transitions. */
  private beginIteration(id: string): void {
    const task = this.state.task(id);
    const loop = task.loop;
    if (loop === undefined) return;
    const item = loop.items[loop.index];
    for (const member of this.state.graph.body(id)) {
      const bodyTask = this.state.job.tasks[member];
      if (bodyTask && bodyTask.status !== 'incomplete') {
        bodyTask.status = 'incomplete';
        this.state.markTask(member);
      }
    }
    const variables = (task.variables ??= {});
    variables.outgoing = merged(variables.outgoing, { current_item: item });
    const target = task.writes?.outgoing?.current_item;
    if (target !== undefined) this.state.setVariable(target, item);
    task.iterations = [...(task.iterations ?? []), String(loop.index)];
    this.state.markTask(id);
    for (const to of this.state.graph.next(id, 'loop')) this.state.activate(to);
  }
}
