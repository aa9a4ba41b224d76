import {
  AppError,
  EVERY,
  SECRET_WALK_DEPTH,
  addFoundSecrets,
  findDeclaredSecrets,
  findSecrets,
  isSecretKey,
  isSecretValue,
  noSecrets,
  secretMask,
} from '@nap/contracts';
import type { FoundSecrets, SecretMask } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { RecentMap, isRecord, setOwn } from '@nap/util';
import type { JobRecord } from '../domain/job-model';
import { isValueRef } from '../domain/job-values';

/** The member of what the store holds in place of a secret value of a job: the value's JSON, sealed. */
export const SEALED = '__nap_sealed';

/** A secret value of a job as stored: its JSON sealed with the platform's secret key (see {@link JobSealer}). */
export interface SealedValue {
  [SEALED]: string;
}

export function isSealedValue(value: unknown): value is SealedValue {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[SEALED] === 'string';
}

/** What the sealing of a job's writes needs of the job: its id, its variables as the engine holds them (clear) and its secrets' paths. */
export type SealingSource = Pick<JobRecord, '_id' | 'variables' | 'secretInputs'> & { tasks?: unknown; pinned?: unknown };

/** The members of a job document that hold values (the others hold the engine's bookkeeping, names and times). */
export const VALUE_MEMBERS = ['variables', 'tasks', 'error', 'pinned'] as const;

/**
 * The members of a task that hold values (its incoming, outgoing, resolved and error, a person's
 * answer, a loop's items, a child run's inputs, a retry's error). The others (status, name, app,
 * times) are searched and matched in the store as they are: never sealed, even when a secret is an
 * ordinary word they hold.
 */
const TASK_VALUE_MEMBERS: ReadonlySet<string> = new Set(['variables', 'finishRequest', 'loop', 'childRun', 'retries']);

/** Members of a job's error entries that are not values: the task's id and the time. */
const ERROR_ENTRY_KEYS: ReadonlySet<string> = new Set(['task', 'timestamp']);

/** Jobs whose secrets are kept between writes, and sealed texts kept by job and value (each bounded: the oldest go first). */
const REMEMBERED_JOBS = 1_024;
const REMEMBERED_SEALS = 8_192;

/** The secrets of one job as its writes found them: what they mask, kept while they stay the same. */
interface JobSecrets {
  found: FoundSecrets;
  mask: SecretMask;
  /** The tasks of the copy of the job they were found in: another copy (the job read again) is searched whole again. */
  of: unknown;
}

/** Whether `more` holds a secret `into` does not. */
function addsSecrets(into: FoundSecrets, more: FoundSecrets): boolean {
  for (const text of more.texts) if (!into.texts.has(text)) return true;
  for (const pair of more.pairs) if (!into.pairs.has(pair)) return true;
  return false;
}

/**
 * Seals the secret values of jobs before they are stored, and opens them when jobs are read back.
 * A job that started with secrets (`secretInputs`: those of secret names, and those its workflow or
 * trigger declares; an empty list for a job that took one later, a manual task answered with a
 * password) is stored with each secret value replaced by a {@link SealedValue}: the values at its
 * declared paths, every member of a secret name (in its variables, a task's incoming, outgoing or
 * finish request, …), and every string or number that holds a secret's text anywhere else (a task's
 * output that copied it, a text that embeds it, in any of the forms the platform masks). A job without
 * secrets is stored as it is, untouched and uncopied. Sealing and opening use the platform's secret
 * key (`NAP_SECRET_KEY`), as triggers' form data do; a value sealed once for a job is sealed to the
 * same text on later writes (kept in memory), so that a step does not seal again what did not change.
 */
export class JobSealer {
  private readonly jobs = new RecentMap<string, JobSecrets>(REMEMBERED_JOBS);
  private readonly seals = new RecentMap<string, string>(REMEMBERED_SEALS);

  constructor(private readonly box: SecretBox) {}

  /** `job` (a new one, stored whole) with its secret values sealed; `job` itself when it has none. Copied only along what is sealed. */
  sealJob<T extends SealingSource>(job: T): T {
    if (job.secretInputs === undefined) return job;
    const secrets = this.secretsOf(job, []);
    let out: T | undefined;
    for (const member of VALUE_MEMBERS) {
      if (!Object.hasOwn(job, member)) continue;
      const value = (job as Record<string, unknown>)[member];
      const sealed = this.sealMember(member, value, job, secrets);
      if (sealed !== value) setOwn((out ??= { ...job }) as Record<string, unknown>, member, sealed);
    }
    return out ?? job;
  }

  /**
   * A job as an earlier release stored it (`stored`: its large values put back, its sealed values, if
   * any, not opened) sealed whole as a new job is ({@link sealJob}); undefined when the store holds
   * none of its secrets in clear. A job without `secretInputs` that holds a secret (a member of a
   * secret name, private key material) takes an empty `secretInputs`, as a running job that takes one
   * does; one that holds none is left as it is. `stored` is not changed.
   */
  resealStored<T extends SealingSource>(stored: T): T | undefined {
    const members = stored as Record<string, unknown>;
    let job: T;
    if (stored.secretInputs === undefined) {
      if (!VALUE_MEMBERS.some((member) => Object.hasOwn(stored, member) && this.holdsSecrets(members[member]))) return undefined;
      job = { ...stored, secretInputs: [] };
    } else {
      // what a write of this release sealed already is opened, so that its copies elsewhere are found
      job = structuredClone(stored);
      this.openJob(job as Record<string, unknown>);
    }
    const sealed = this.sealJob(job);
    // a job that is done: nothing of it to keep for later writes
    this.forget([stored._id]);
    const out = sealed as Record<string, unknown>;
    return VALUE_MEMBERS.some((member) => sealsMore(out[member], members[member], 0)) ? sealed : undefined;
  }

  /**
   * The `$set` of a write to `job` (as the engine holds it) with the secret values of what it sets
   * sealed (`variables`, `error`, `pinned`, a task or a member of one); `set` itself for a job
   * without secrets. `set` is not changed: what it sets is copied along what is sealed.
   */
  sealSet(job: SealingSource, set: Record<string, unknown>): Record<string, unknown> {
    if (job.secretInputs === undefined) return set;
    const secrets = this.secretsOf(
      job,
      Object.entries(set).flatMap(([path, value]) => (path === 'variables' ? [] : [value])),
      set.variables,
    );
    let out: Record<string, unknown> | undefined;
    for (const [path, value] of Object.entries(set)) {
      if (path !== 'variables' && path !== 'error' && path !== 'pinned' && !path.startsWith('tasks.')) continue;
      const sealed = this.sealMember(path, value, job, secrets);
      if (sealed !== value) setOwn((out ??= { ...set }), path, sealed);
    }
    return out ?? set;
  }

  /**
   * Whether `value` holds a member of a secret name with a value: what a write of a job without
   * secrets looks for (a task's output with a `token`), cheap enough for every write (names only,
   * each decided once).
   */
  holdsSecretMember(value: unknown): boolean {
    return hasSecretMember(value, 0);
  }

  /** Whether `value` holds a secret by the platform's policy (a member of a secret name with a value, private key material). */
  holdsSecrets(value: unknown): boolean {
    const found = findSecrets(value);
    return found.texts.size > 0 || found.pairs.size > 0 || hasSecretMember(value, 0);
  }

  /**
   * Opens the sealed values of a job (or a projection of it) read from the store, in place: the job
   * as it was given to be stored. A job without `secretInputs` holds none (an earlier release's job
   * holds its values in clear: it is read as it is).
   */
  openJob(doc: Record<string, unknown>): void {
    if (doc.secretInputs === undefined) return;
    for (const member of VALUE_MEMBERS) {
      if (!Object.hasOwn(doc, member)) continue;
      const value = doc[member];
      const opened = this.opened(value, String(doc._id), 0);
      if (opened !== value) setOwn(doc, member, opened);
    }
  }

  /** Forgets what was kept of a job's secrets (it left the store). */
  forget(jobIds: readonly string[]): void {
    for (const id of jobIds) this.jobs.delete(id);
  }

  /**
   * The secrets of `job`: those its variables hold (at its declared paths, and by name), and those of
   * secret names in `values` (what a write sets) and in what earlier writes of this process set
   * (kept by job). Each secret's texts mask its copies.
   */
  private secretsOf(job: SealingSource, values: unknown[], variables?: unknown): JobSecrets {
    const paths = job.secretInputs ?? [];
    let kept = this.jobs.get(job._id);
    // the job read again (a reload, a takeover, a handler's read): what other engines wrote is in it
    if (kept !== undefined && kept.of !== job.tasks) kept = undefined;
    const more = noSecrets();
    if (kept === undefined) {
      // a job this process did not write yet (or forgot): what the job holds, all of it
      findDeclaredSecrets(job.variables, paths, findSecrets(job.variables, more));
      findSecrets(job.tasks, more);
      findSecrets(job.pinned, more);
    } else if (variables !== undefined) findDeclaredSecrets(variables, paths, findSecrets(variables, more));
    for (const value of values) findSecrets(value, more);
    if (kept === undefined) kept = { found: more, mask: secretMask(more), of: job.tasks };
    else if (addsSecrets(kept.found, more))
      kept = { found: addFoundSecrets(noSecrets(kept.found), more), mask: kept.mask.with(more), of: job.tasks };
    this.jobs.set(job._id, kept);
    return kept;
  }

  /**
   * A member of a job (`variables`, a task, …) sealed: every secret in it, then for the variables
   * what is left at the declared paths (a value too short to be searched for as a text, a number, an object).
   */
  private sealMember(path: string, value: unknown, job: SealingSource, secrets: JobSecrets): unknown {
    const jobId = job._id;
    if (path === 'variables') {
      let out = this.sealed(value, jobId, secrets, 0);
      for (const secretPath of job.secretInputs ?? []) out = this.sealAt(out, secretPath, 0, jobId);
      return out;
    }
    if (path === 'pinned') return this.sealed(value, jobId, secrets, 0);
    if (path === 'error') return this.sealedMembers(value, jobId, secrets, (key) => !ERROR_ENTRY_KEYS.has(key), true);
    if (path === 'tasks') return this.sealedMembers(value, jobId, secrets, () => true, false, true);
    const [, , member] = path.split('.', 3);
    // a task whole (`tasks.<id>`), or one member of it (`tasks.<id>.finishRequest`)
    if (member === undefined) return this.sealedTask(value, jobId, secrets);
    return TASK_VALUE_MEMBERS.has(member) ? this.sealed(value, jobId, secrets, 0) : value;
  }

  private sealedTask(task: unknown, jobId: string, secrets: JobSecrets): unknown {
    return this.sealedMembers(task, jobId, secrets, (key) => TASK_VALUE_MEMBERS.has(key), false);
  }

  /**
   * `holder` (a record, or with `items` an array of records) with the members `sealable` names
   * sealed, each whole ({@link sealed}); with `tasks`, `holder` is the tasks of a job, each sealed as a task.
   */
  private sealedMembers(
    holder: unknown,
    jobId: string,
    secrets: JobSecrets,
    sealable: (key: string) => boolean,
    items: boolean,
    tasks = false,
  ): unknown {
    if (items) {
      if (!Array.isArray(holder)) return this.sealed(holder, jobId, secrets, 0);
      let copy: unknown[] | undefined;
      holder.forEach((item: unknown, i) => {
        const next = this.sealedMembers(item, jobId, secrets, sealable, false);
        if (next !== item) (copy ??= [...holder])[i] = next;
      });
      return copy ?? holder;
    }
    if (!isRecord(holder)) return holder;
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(holder)) {
      const item = holder[key];
      const next = tasks ? this.sealedTask(item, jobId, secrets) : sealable(key) ? this.sealed(item, jobId, secrets, 1) : item;
      if (next !== item) setOwn((copy ??= { ...holder }), key, next);
    }
    return copy ?? holder;
  }

  /** `value` (sealed by {@link sealed} already: what is sealed in it is this sealer's) with what it holds at `path` ({@link EVERY}: every item or member) sealed. */
  private sealAt(value: unknown, path: readonly string[], at: number, jobId: string): unknown {
    if (at === path.length) {
      if (value === null || value === undefined || typeof value === 'boolean' || isSealedValue(value)) return value;
      return this.seal(value, jobId);
    }
    const segment = path[at] as string;
    if (Array.isArray(value)) {
      if (segment !== EVERY) return value;
      let copy: unknown[] | undefined;
      value.forEach((item: unknown, i) => {
        const next = this.sealAt(item, path, at + 1, jobId);
        if (next !== item) (copy ??= [...value])[i] = next;
      });
      return copy ?? value;
    }
    if (!isRecord(value) || isSealedValue(value) || isValueRef(value)) return value;
    let copy: Record<string, unknown> | undefined;
    for (const name of segment === EVERY ? Object.keys(value) : Object.hasOwn(value, segment) ? [segment] : []) {
      const item = value[name];
      const next = this.sealAt(item, path, at + 1, jobId);
      if (next !== item) setOwn((copy ??= { ...value }), name, next);
    }
    return copy ?? value;
  }

  /**
   * `value` with every secret it holds sealed (see the class comment), copied only along what is. A
   * value the engine holds is never sealed already (reads open them): an object that looks like one
   * is a caller's and is sealed whole, so that it reads back as it was given.
   */
  private sealed(value: unknown, jobId: string, secrets: JobSecrets, depth: number): unknown {
    if (typeof value === 'string') return isSecretValue(value) || secrets.mask.text(value) !== value ? this.seal(value, jobId) : value;
    if (typeof value === 'number') return secrets.found.texts.has(String(value)) ? this.seal(value, jobId) : value;
    if (value === null || typeof value !== 'object' || isValueRef(value)) return value;
    if (isSealedValue(value)) return this.seal(value, jobId);
    if (depth >= SECRET_WALK_DEPTH) {
      const json = JSON.stringify(value);
      return json !== undefined && secrets.mask.text(json) !== json ? this.seal(value, jobId) : value;
    }
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      value.forEach((item: unknown, i) => {
        const next = this.sealed(item, jobId, secrets, depth + 1);
        if (next !== item) (copy ??= [...value])[i] = next;
      });
      return copy ?? value;
    }
    if (!isRecord(value)) return value;
    let copy: Record<string, unknown> | undefined;
    for (const name of Object.keys(value)) {
      const item = value[name];
      const next =
        isSecretKey(name) && item !== null && item !== undefined && typeof item !== 'boolean' && !isValueRef(item)
          ? this.seal(item, jobId)
          : this.sealed(item, jobId, secrets, depth + 1);
      if (next !== item) setOwn((copy ??= { ...value }), name, next);
    }
    return copy ?? value;
  }

  /** `value` sealed: the same text as the last time this job's value was sealed by this process. */
  private seal(value: unknown, jobId: string): unknown {
    const json = JSON.stringify(value);
    if (json === undefined) return value;
    const key = `${jobId}\u0000${json}`;
    const sealed = this.seals.get(key) ?? this.box.seal(json);
    this.seals.set(key, sealed);
    return { [SEALED]: sealed } satisfies SealedValue;
  }

  /** `value` with each sealed value in it opened, in place (a sealed value itself is replaced: the value opened is returned). */
  private opened(value: unknown, jobId: string, depth: number): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (isSealedValue(value)) return this.open(value, jobId);
    if (depth >= SECRET_WALK_DEPTH) return value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const next = this.opened(item, jobId, depth + 1);
        if (next !== item) value[i] = next;
      }
      return value;
    }
    if (!isRecord(value)) return value;
    for (const name of Object.keys(value)) {
      const item = value[name];
      const next = this.opened(item, jobId, depth + 1);
      if (next !== item) setOwn(value, name, next);
    }
    return value;
  }

  private open(value: SealedValue, jobId: string): unknown {
    let json: string;
    try {
      json = this.box.open(value[SEALED]);
    } catch (err) {
      throw new AppError('INTERNAL', `A sealed value of job "${jobId}" cannot be opened; was NAP_SECRET_KEY changed?`, { cause: err });
    }
    return JSON.parse(json) as unknown;
  }
}

/** Whether `value` has a member of a secret name holding a value, at any depth (one too short for a text counts). */
function hasSecretMember(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object' || depth >= SECRET_WALK_DEPTH) return false;
  if (Array.isArray(value)) return value.some((item: unknown) => hasSecretMember(item, depth + 1));
  if (!isRecord(value)) return false;
  for (const name of Object.keys(value)) {
    const item = value[name];
    if (isSecretKey(name) && item !== null && item !== undefined && typeof item !== 'boolean') return true;
    if (hasSecretMember(item, depth + 1)) return true;
  }
  return false;
}

/**
 * Whether `sealed` (a value of a job sealed by {@link JobSealer.sealJob}) seals something that
 * `stored` (the same value as the store holds it) holds in clear: a sealed value where the store has
 * another.
 */
function sealsMore(sealed: unknown, stored: unknown, depth: number): boolean {
  if (sealed === stored || sealed === null || typeof sealed !== 'object') return false;
  if (isSealedValue(sealed)) return !isSealedValue(stored);
  // below the deepest level sealing walks, values are sealed whole: seen above
  if (depth > SECRET_WALK_DEPTH) return false;
  if (Array.isArray(sealed)) {
    if (!Array.isArray(stored)) return true;
    return sealed.some((item: unknown, i) => sealsMore(item, stored[i], depth + 1));
  }
  if (!isRecord(sealed)) return false;
  if (!isRecord(stored)) return true;
  return Object.keys(sealed).some((name) => sealsMore(sealed[name], stored[name], depth + 1));
}
