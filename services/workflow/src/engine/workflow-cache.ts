import { decodeJson } from '@nap/bus';
import type { WorkflowDocument } from '@nap/contracts';
import { RecentMap, deepFreeze } from '@nap/util';

/** Workflows kept by {@link WorkflowCache} by default: those of the names parsed most recently. */
export const DEFAULT_CACHED_WORKFLOWS = 64;

/**
 * Replies larger than this many bytes are parsed every time and not kept: a workflow of that size
 * has so many tasks that reading it weighs little against running them, and the cache's memory
 * stays bounded by entries times this, with the parsed objects a few times it (the 157 workflows
 * of the fixtures are 6 KB of JSON at the median, 28 KB at most).
 */
export const MAX_CACHED_WORKFLOW_BYTES = 128 * 1024;

/**
 * The workflows that starts read from the studio, parsed once per text: a reply whose bytes are
 * those of the last reply for the same name answers the workflow parsed then. Starts run the same
 * few workflows again and again, and parsing the reply was a few percent of the CPU of a job of
 * built-ins. The workflow answered is deep-frozen and shared by every job started from it (a job
 * shares values with its workflow, see `newJobRecord`): whatever changes a job's task changes the
 * task's own members, never the values it shares (a frozen one throws in strict mode rather than
 * changing another job). Keyed by name for the bound only: the bytes decide, so a reply that
 * differs (the workflow was saved, another caller's project member) is parsed and kept instead.
 */
export class WorkflowCache {
  private readonly recent: RecentMap<string, { bytes: Buffer; workflow: WorkflowDocument }>;

  constructor(limit = DEFAULT_CACHED_WORKFLOWS) {
    this.recent = new RecentMap(limit);
  }

  /** The workflow of the studio's reply `data` (getWorkflow's JSON) for `name`, deep-frozen. */
  parse(name: string, data: Uint8Array): WorkflowDocument {
    const kept = this.recent.get(name);
    if (kept !== undefined && kept.bytes.equals(data)) return kept.workflow;
    const workflow = deepFreeze(decodeJson<WorkflowDocument>(data));
    // the reply's bytes may be a view of a larger buffer (a NATS read): the copy kept is its own
    if (data.length <= MAX_CACHED_WORKFLOW_BYTES) this.recent.set(name, { bytes: Buffer.from(data), workflow });
    else this.recent.delete(name);
    return workflow;
  }
}
