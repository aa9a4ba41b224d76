import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LiveSettings } from '@nap/bus';
import { DEFAULT_JOB_RETENTION_DAYS, SERVICE_SETTINGS_SCHEMAS, parseAs } from '@nap/contracts';
import { ConfigError } from '@nap/runtime';
import type { ArchiveOptions } from './engine/job-archiver';
import type { EngineOptions } from './engine/job-engine';

/** Settings of the engine's leases from the environment, by variable. */
const INTEGER_SETTINGS = [
  { variable: 'NAP_WORKFLOW_LEASE_MS', option: 'leaseMs', min: 100, max: 600_000, unit: 'milliseconds' },
  { variable: 'NAP_WORKFLOW_RENEW_MS', option: 'renewMs', min: 20, max: 600_000, unit: 'milliseconds' },
  { variable: 'NAP_WORKFLOW_SCAN_MS', option: 'scanMs', min: 20, max: 600_000, unit: 'milliseconds' },
  { variable: 'NAP_JOB_INLINE_VALUE_BYTES', option: 'inlineValueBytes', min: 1024, max: 8 * 1024 * 1024, unit: 'bytes' },
  { variable: 'NAP_JOB_MAX_VALUE_BYTES', option: 'maxValueBytes', min: 1024, max: 15 * 1024 * 1024, unit: 'bytes' },
  { variable: 'NAP_JOB_ARCHIVE_BATCH', option: 'archiveBatchJobs', min: 1, max: 10_000, unit: 'jobs' },
  { variable: 'NAP_JOB_RETENTION_INTERVAL_MS', option: 'retentionIntervalMs', min: 1_000, max: 31 * 86_400_000, unit: 'milliseconds' },
  { variable: 'NAP_MAX_JOBS_PER_TREE', option: 'maxJobsPerTree', min: 1, max: 100_000_000, unit: 'jobs' },
] as const;

const SERVER_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * The engine's settings from `NAP_WORKFLOW_*`: `NAP_WORKFLOW_LEASE_MS` (an engine whose heartbeat has
 * not moved for this long is dead, default 3000), `NAP_WORKFLOW_RENEW_MS` (heartbeat interval, default
 * a third of the lease), `NAP_WORKFLOW_SCAN_MS` (how often an engine looks for dead ones, default a
 * third of the lease), `NAP_WORKFLOW_SERVER_ID` (the engine's id; a restart under the same id
 * resumes its jobs at once), `NAP_JOB_INLINE_VALUE_BYTES` (task outputs and variables larger than
 * this stay out of the job document, in `job_values`; default 64 KiB) and `NAP_JOB_MAX_VALUE_BYTES`
 * (a larger value fails its task with VALUE_TOO_LARGE; default and most 15 MiB),
 * `NAP_JOB_ARCHIVE_BATCH` (jobs an archive batch moves, default 200),
 * `NAP_JOB_RETENTION_INTERVAL_MS` (how often the job retention runs, default a day) and
 * `NAP_MAX_JOBS_PER_TREE` (descendant jobs one root job may have, default 10,000). Throws a
 * `ConfigError` listing every problem.
 */
export function engineOptionsFromEnv(env: NodeJS.ProcessEnv): EngineOptions & ArchiveOptions {
  const options: EngineOptions & ArchiveOptions = {};
  const problems: string[] = [];
  for (const { variable, option, min, max, unit } of INTEGER_SETTINGS) {
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
      problems.push(`${variable} must be a whole number of ${unit} from ${min} to ${max}, not ${JSON.stringify(raw)}`);
    else options[option] = value;
  }
  const lease = options.leaseMs;
  if (lease !== undefined || options.renewMs !== undefined) {
    const effectiveLease = lease ?? 3_000;
    if (options.renewMs !== undefined && options.renewMs * 2 > effectiveLease)
      problems.push(
        `NAP_WORKFLOW_RENEW_MS (${options.renewMs}) must be at most half of the lease (${effectiveLease} ms), so that one late heartbeat does not make a live engine look dead`,
      );
    if (options.scanMs !== undefined && options.scanMs > effectiveLease)
      problems.push(`NAP_WORKFLOW_SCAN_MS (${options.scanMs}) must not exceed the lease (${effectiveLease} ms)`);
  }
  if (options.inlineValueBytes !== undefined && options.maxValueBytes !== undefined && options.inlineValueBytes > options.maxValueBytes)
    problems.push(
      `NAP_JOB_INLINE_VALUE_BYTES (${options.inlineValueBytes}) must not exceed NAP_JOB_MAX_VALUE_BYTES (${options.maxValueBytes})`,
    );
  const id = env.NAP_WORKFLOW_SERVER_ID;
  if (id !== undefined && id !== '') {
    if (SERVER_ID.test(id)) options.serverId = id;
    else problems.push('NAP_WORKFLOW_SERVER_ID must be 1 to 128 letters, digits, "_", ".", ":" or "-"');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return options;
}

/**
 * The engine id of a single-process installation, kept in `<dataDir>/workflow-engine.id` (created on
 * first start): a restarted process takes the same id and resumes its jobs at once instead of
 * waiting for its former self's lease to lapse.
 */
export function persistentEngineId(dataDir: string): string {
  const file = path.join(dataDir, 'workflow-engine.id');
  const existing = existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
  if (existing !== undefined && SERVER_ID.test(existing)) return existing;
  mkdirSync(dataDir, { recursive: true });
  const id = `workflow-${randomUUID()}`;
  try {
    // a file that holds no valid id (damaged) is replaced; a missing one is created exclusively
    writeFileSync(file, `${id}\n`, { mode: 0o600, flag: existing === undefined ? 'wx' : 'w' });
  } catch (err) {
    // another process of the same data directory wrote it first: use theirs
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw err;
  }
  return id;
}

const settingsSchema = SERVICE_SETTINGS_SCHEMAS.workflow;

/**
 * The workflow service's settings that change while it runs (`PUT /applications/WorkFlowEngine/properties`,
 * and the active profile's `retentionProps.jobsDays`): read on every use, so a change applies from
 * the retention's next due time on.
 */
export class WorkflowLiveSettings {
  /** Finished root jobs that ended more than this many days ago are archived by the retention; 0: never. */
  jobRetentionDays = DEFAULT_JOB_RETENTION_DAYS;

  /** What `serve` hands the replica's control channel. */
  live(): LiveSettings {
    return {
      schema: settingsSchema,
      defaults: { jobRetentionDays: DEFAULT_JOB_RETENTION_DAYS },
      apply: (values) => {
        const next = parseAs(settingsSchema, values, 'properties');
        this.jobRetentionDays = next.jobRetentionDays ?? DEFAULT_JOB_RETENTION_DAYS;
      },
    };
  }
}
