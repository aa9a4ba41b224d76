import { once } from 'node:events';
import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { ARCHIVABLE_JOB_STATUSES, JOB_ARCHIVE_STATES } from '@nap/contracts/dist/job-archive-states';
import { triggerKind } from '@nap/contracts/dist/trigger-kinds';
import type { Colors } from 'picocolors/types';
import type { Context } from '../context';
import { confirmOrStop } from '../confirm';
import { formatDuration, parseDuration, parseMoment } from '../duration';
import { CliError, EXIT, UnreachableError, usage } from '../errors';
import type { ExitCode } from '../errors';
import { endedBy, whileInterruptible } from '../interrupt';
import { parseVars, readData } from '../files';
import { loadEventsourceParser } from '../lazy';
import type { ApiRequest, Client, Query } from '../http/client';
import { pathOf, platformMessage } from '../http/client';
import { eachItem } from '../each';
import { bytesText, statusColor, table } from '../output/format';
import type { Doc } from '../resources/documents';
import { field, isDoc, itemsOf, str, unwrap } from '../resources/documents';
import { mustFind } from '../resources/lookup';
import { an, findResource, isoTime } from '../resources/registry';
import { limitOption } from '../limit';

/** What a job's final status means as an exit code. */
export function exitCodeOf(status: string | undefined): ExitCode {
  switch (status) {
    case 'complete':
      return EXIT.OK;
    case 'canceled':
      return EXIT.CANCELED;
    case 'error':
      return EXIT.FAILED;
    default:
      return EXIT.STILL_RUNNING;
  }
}

const TERMINAL = new Set(['complete', 'error', 'canceled']);

/** A job the platform does not have, said as `nap get` says a missing document: by its id, with where to look. */
function jobNotFound(client: Client, id: string): CliError {
  return new CliError(
    `job "${id}" not found on ${client.url}; \`nap jobs list\` lists them (a finished job may have been moved into an archive: \`nap jobs archives\`)`,
    EXIT.FAILED,
  );
}

/** The job as the platform answers it; a job it does not have is {@link jobNotFound}. */
export async function getJob(client: Client, id: string): Promise<Doc> {
  const req = { method: 'GET', path: pathOf('/operations-manager/jobs/:jobId', { jobId: id }) } as const;
  const res = await client.send(req);
  if (res.status === 404 && platformMessage(res.body).code === 'JOB_NOT_FOUND') throw jobNotFound(client, id);
  if (res.status >= 400) throw client.failure(req, res);
  const job = unwrap(res.body);
  if (!isDoc(job)) throw new CliError(`GET /operations-manager/jobs/${id} answered no job`, EXIT.FAILED);
  return job;
}

function taskError(task: unknown): string | undefined {
  const error = field(task, 'variables.error');
  if (error === undefined || error === null || error === '') return undefined;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

function taskLabel(job: Doc | undefined, taskId: string, fallback?: string): string {
  const task = isDoc(job?.tasks) ? (job.tasks as Doc)[taskId] : undefined;
  const summary = str(field(task, 'summary')) ?? str(field(task, 'name')) ?? fallback;
  return summary === undefined || summary === taskId ? taskId : `${taskId} (${summary})`;
}

interface FollowOptions {
  /** Print task progress (`--follow`); quiet for `--wait`. */
  progress: boolean;
  /** Give up after this long (exit 3); undefined: wait as long as it takes. */
  timeoutMs?: number;
}

/**
 * Follows a job on its event stream (`GET /operations-manager/jobs/:id/events`) until it ends, and
 * answers the exit code of its final status. The stream starts with a snapshot of the job; a
 * stream that drops is opened again with `Last-Event-ID`, so no event is missed.
 */
export async function followJob(ctx: Context, client: Client, jobId: string, opts: FollowOptions): Promise<{ job: Doc; code: ExitCode }> {
  const c = ctx.stderrColors;
  const deadline = opts.timeoutMs === undefined ? undefined : Date.now() + opts.timeoutMs;
  const controller = new AbortController();
  const timer = opts.timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(), opts.timeoutMs);
  const { createParser } = loadEventsourceParser();
  let lastEventId: string | undefined;
  let snapshot: Doc | undefined;
  let ended = false;
  /**
   * What was printed last of each task: a stream that is opened again starts with a new snapshot
   * (and may repeat an event already seen), and only what changed since is printed, so that the
   * progress reads as one story however often the connection drops.
   */
  const printed = new Map<string, 'running' | 'finished'>();
  const say = (line: string): void => {
    if (opts.progress) ctx.note(line);
  };
  const time = (ms: unknown): string => c.dim(typeof ms === 'number' ? new Date(ms).toISOString().slice(11, 19) : '        ');
  // a manual task stops the job until a person finishes it: say so, and how, once per start
  const waitsForPerson = (taskId: string): void => {
    if (field(snapshot, `tasks.${taskId}.type`) !== 'manual') return;
    say(
      `${' '.repeat(9)}${c.yellow('⏸')} waits for a person: \`nap tasks finish ${jobId} ${taskId}\` (--failure for its "no" branch), or the job's page ${client.url}/console/jobs/${jobId}`,
    );
  };
  /** How a job that ended before it was followed ended, as the live events say it. */
  const endLine = (job: Doc): string => {
    const at = time(field(job, 'metrics.end_time'));
    switch (job.status) {
      case 'error': {
        const errors = Array.isArray(job.error)
          ? job.error.filter(isDoc).map((e) => `${String(e.task ?? '?')}: ${String(e.message ?? '')}`)
          : [];
        return `${at} ${c.red('job ended in error')}${errors.length > 0 ? `: ${errors.join('; ')}` : ''}`;
      }
      case 'canceled':
        return `${at} ${c.yellow('job canceled')}`;
      default:
        return `${at} ${c.green('job complete')}`;
    }
  };
  const onEvent = async (event: string, data: Doc): Promise<void> => {
    const taskId = str(data.taskId) ?? '';
    switch (event) {
      case 'snapshot': {
        const first = snapshot === undefined;
        snapshot = data;
        const over = TERMINAL.has(String(data.status));
        if (first)
          say(
            `${time(Date.now())} job ${jobId} ${c.bold(String(data.name ?? ''))} ${over ? 'had already ended' : `is ${statusColor(String(data.status), c)}`}`,
          );
        for (const [id, task] of orderedTasks(data)) {
          if (task.status === 'running') {
            if (printed.get(id) === 'running') continue;
            printed.set(id, 'running');
            say(`${time(field(task, 'metrics.start_time'))} ${c.cyan('▶')} ${taskLabel(data, id)} is running`);
            waitsForPerson(id);
            continue;
          }
          const state = String(field(task, 'metrics.finish_state') ?? '');
          if (state === '' || printed.get(id) === 'finished') continue;
          printed.set(id, 'finished');
          const mark = state === 'success' ? c.green('✔') : c.red('✖');
          const detail = state === 'error' ? taskError(task) : undefined;
          say(
            `${time(field(task, 'metrics.end_time'))} ${mark} ${taskLabel(data, id)} finished: ${statusColor(state, c)}${detail === undefined ? '' : ` — ${detail}`}`,
          );
        }
        if (over) {
          ended = true;
          say(endLine(data));
        }
        break;
      }
      case 'taskStart':
        // a start the snapshot showed already (the stream may repeat it)
        if (printed.get(taskId) === 'running') break;
        printed.set(taskId, 'running');
        say(`${time(data.timestamp)} ${c.cyan('▶')} ${taskLabel(snapshot, taskId, str(data.taskName))} started`);
        waitsForPerson(taskId);
        break;
      case 'taskFinish': {
        if (printed.get(taskId) === 'finished') break;
        printed.set(taskId, 'finished');
        const state = String(data.finishState ?? data.taskStatus ?? '');
        let line = `${time(data.timestamp)} ${state === 'success' ? c.green('✔') : c.red('✖')} ${taskLabel(snapshot, taskId, str(data.taskName))} finished: ${statusColor(state, c)}`;
        if (opts.progress && state === 'error') {
          const detail = taskError(field(await getJob(client, jobId).catch(() => undefined), `tasks.${taskId}`));
          if (detail !== undefined) line += ` — ${detail}`;
        }
        say(line);
        break;
      }
      case 'jobError': {
        const errors = Array.isArray(data.error)
          ? data.error.filter(isDoc).map((e) => `${String(e.task ?? '?')}: ${String(e.message ?? '')}`)
          : [];
        say(`${time(data.timestamp)} ${c.red('job ended in error')}${errors.length > 0 ? `: ${errors.join('; ')}` : ''}`);
        ended = true;
        break;
      }
      case 'jobComplete':
        say(`${time(data.timestamp)} ${c.green('job complete')}`);
        ended = true;
        break;
      case 'jobCancel':
        say(`${time(data.timestamp)} ${c.yellow('job canceled')}`);
        ended = true;
        break;
      case 'jobPause':
        say(`${time(data.timestamp)} ${c.yellow('job paused')}`);
        break;
      case 'jobResume':
        say(`${time(data.timestamp)} job resumed`);
        break;
      default:
        break;
    }
  };
  // Ctrl-C (or a CI job canceled: SIGTERM) stops following, not the job: say how to go on
  const release = whileInterruptible((signal) =>
    ctx.note(
      `\nnap: ${endedBy(signal)}; job ${jobId} goes on running: \`nap jobs watch ${jobId}\` follows it, \`nap jobs cancel ${jobId}\` stops it`,
    ),
  );
  /** When the platform stopped answering (a restart, a failover), while it has not answered again. */
  let lostAt: number | undefined;
  /**
   * The platform does not answer after it did (its stream opened once): a restart or a failover,
   * which the job outlives. Said once; asked again after a pause, for {@link RECONNECT_FOR_MS}
   * (within `--timeout`), then given up naming the job to follow again.
   */
  const lost = async (err: CliError): Promise<void> => {
    if (snapshot === undefined) throw err;
    const now = Date.now();
    if (lostAt === undefined) {
      lostAt = now;
      const reason = err instanceof UnreachableError ? err.reason : `it answered ${err.status ?? '?'}`;
      say(`${time(now)} ${c.yellow('lost the platform')} (${reason}); nap follows the job again when it answers`);
    }
    if (now - lostAt >= RECONNECT_FOR_MS)
      throw new CliError(
        `${err.message} (for ${formatDuration(now - lostAt)}); job ${jobId} may still be running there: \`nap jobs watch ${jobId}\` follows it again once the platform answers`,
        EXIT.UNREACHABLE,
        { cause: err },
      );
    await pause(Math.min(1000 * 2 ** Math.floor((now - lostAt) / 10_000), 10_000), controller.signal);
  };
  /** Streams in a row that ended within {@link STEADY_STREAM_MS} without the job ending: a loop that gets nowhere. */
  let quickEnds = 0;
  try {
    while (!ended) {
      const queue: { event: string; data: Doc; id?: string }[] = [];
      const parser = createParser({
        onEvent: (e) => {
          try {
            const data = JSON.parse(e.data) as unknown;
            if (isDoc(data)) queue.push({ event: e.event ?? 'message', data, ...(e.id === undefined ? {} : { id: e.id }) });
          } catch {
            // a comment or keep-alive without JSON
          }
        },
      });
      let res: Response;
      try {
        res = await client.stream({
          method: 'GET',
          path: pathOf('/operations-manager/jobs/:jobId/events', { jobId }),
          headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId },
          signal: controller.signal,
        });
      } catch (err) {
        if (controller.signal.aborted) break;
        if (isOutage(err)) {
          await lost(err);
          continue;
        }
        // a job the platform does not have is said as every command says it (the read names it)
        if (err instanceof CliError && err.exitCode === EXIT.FAILED && snapshot === undefined) await getJob(client, jobId);
        throw err;
      }
      if (lostAt !== undefined) {
        say(`${time(Date.now())} the platform answers again, after ${formatDuration(Date.now() - lostAt)}`);
        lostAt = undefined;
      }
      const opened = Date.now();
      let dropped: unknown;
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body ?? []) {
          parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
          while (queue.length > 0) {
            const next = queue.shift()!;
            if (next.id !== undefined) lastEventId = next.id;
            await onEvent(next.event, next.data);
          }
          if (ended) break;
        }
      } catch (err) {
        if (controller.signal.aborted) break;
        dropped = err;
      } finally {
        await res.body?.cancel().catch(() => undefined);
      }
      if (ended) break;
      // a stream that lasted is a load balancer's limit, which may cut every stream of a long job
      quickEnds = Date.now() - opened >= STEADY_STREAM_MS ? 0 : quickEnds + 1;
      if (quickEnds > QUICK_ENDS_LIMIT) {
        const how = dropped === undefined ? 'keeps closing' : `keeps dropping: ${(dropped as Error).message}`;
        throw new CliError(`the event stream of job ${jobId} on ${client.url} ${how}`, EXIT.UNREACHABLE);
      }
      // the stream closed: the job may have ended between two events; ask, and say what it did
      // since the last event seen as the snapshot of a stream opened again would say it
      let job: Doc;
      try {
        job = await getJob(client, jobId);
      } catch (err) {
        if (controller.signal.aborted) break;
        if (!isOutage(err)) throw err;
        await lost(err);
        continue;
      }
      if (TERMINAL.has(String(job.status))) await onEvent('snapshot', job);
      else if (quickEnds > 1) await pause(Math.min(250 * 2 ** (quickEnds - 2), 5_000), controller.signal);
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    release();
  }
  let job: Doc;
  try {
    job = await getJob(client, jobId);
  } catch (err) {
    // --timeout passed while the platform was away: how the job stands is not known
    if (!isOutage(err)) throw err;
    throw new CliError(
      `${err.message}; job ${jobId} may still be running there: \`nap jobs watch ${jobId}\` follows it again once the platform answers`,
      EXIT.UNREACHABLE,
      { cause: err },
    );
  }
  const status = String(job.status);
  if (!TERMINAL.has(status) && deadline !== undefined) {
    throw new JobStillRunning(
      job,
      `job ${jobId} is still ${status} after ${formatDuration(opts.timeoutMs ?? 0)} (--timeout); \`nap jobs watch ${jobId}\` follows it`,
    );
  }
  return { job, code: exitCodeOf(status) };
}

/** How long `--follow` and `jobs watch` keep asking a platform that stopped answering (a restart, a failover) before they give up (exit 6). */
const RECONNECT_FOR_MS = 5 * 60_000;
/** An event stream open this long is one that worked (a load balancer cut it), not one of a loop that gets nowhere. */
const STEADY_STREAM_MS = 5_000;
/** Streams in a row that end sooner than {@link STEADY_STREAM_MS}, without the job ending, before nap gives up (exit 6). */
const QUICK_ENDS_LIMIT = 10;

/**
 * A failure a platform that restarts gives: not reached (or a proxy that cannot reach it), or the
 * platform's own 503 or 504 (a service of it not answering yet).
 */
function isOutage(err: unknown): err is CliError {
  return err instanceof UnreachableError || (err instanceof CliError && (err.status === 503 || err.status === 504));
}

/** Waits `ms`, or less when `signal` aborts (the `--timeout` of a follow). */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => undefined);
}

/** A job followed past `--timeout` (exit 3), with the job as it was then. */
class JobStillRunning extends CliError {
  constructor(
    readonly job: Doc,
    message: string,
  ) {
    super(message, EXIT.STILL_RUNNING);
  }
}

/**
 * Follows a job ({@link followJob}) and prints how it ended: `job <id> complete in 3s`, or the job
 * with `-o json|yaml`; the exit code is the job's. Past `--timeout`, `-o json|yaml` prints the job
 * as it stands (a later step reads its `_id` to cancel or follow it) before the error, exit 3.
 */
async function followAndPrint(ctx: Context, client: Client, id: string, opts: FollowOptions): Promise<void> {
  let outcome: { job: Doc; code: ExitCode };
  try {
    outcome = await followJob(ctx, client, id, opts);
  } catch (err) {
    if (err instanceof JobStillRunning && ctx.format !== 'human') ctx.out(ctx.document(err.job, ctx.format));
    throw err;
  }
  const { job, code } = outcome;
  ctx.print(job, () => `job ${id} ${statusColor(String(job.status), ctx.colors)}${durationOf(job)}`);
  process.exitCode = code;
}

export interface RunOptions {
  var?: string[];
  vars?: string;
  description?: string;
  wait?: boolean;
  follow?: boolean;
  timeout?: string;
  formData?: string;
  trigger?: string;
}

async function jobVariables(ctx: Context, opts: RunOptions): Promise<Record<string, unknown>> {
  let vars: Record<string, unknown> = {};
  if (opts.vars !== undefined) {
    const fromFile = await readData(ctx, `@${opts.vars}`, '--vars', '--vars -');
    if (!isDoc(fromFile)) throw usage(`--vars ${opts.vars} must hold an object of variables`);
    vars = fromFile;
  }
  return { ...vars, ...parseVars(opts.var) };
}

/** After a start: print the job, then wait or follow when asked, and set the exit code. */
async function afterStart(ctx: Context, client: Client, job: Doc, opts: RunOptions): Promise<void> {
  const id = str(job._id);
  if (id === undefined) throw new CliError('the platform answered the start without a job id', EXIT.FAILED);
  const timeoutMs = opts.timeout === undefined ? undefined : parseDuration(opts.timeout, '--timeout');
  const waiting = opts.wait === true || opts.follow === true || timeoutMs !== undefined;
  if (!waiting) {
    ctx.print(job, () => `started job ${id} (${String(job.name ?? '')})`);
    return;
  }
  if (opts.follow === true) ctx.note(`started job ${id} (${String(job.name ?? '')})`);
  await followAndPrint(ctx, client, id, { progress: opts.follow === true, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}

function durationOf(job: Doc): string {
  const start = field(job, 'metrics.start_time');
  const end = field(job, 'metrics.end_time');
  return typeof start === 'number' && typeof end === 'number' ? ` in ${formatDuration(end - start)}` : '';
}

/**
 * A start that got no answer though it may have reached the platform (a timeout, a connection cut,
 * a proxy's 502 or 504): the job may have started, and a step that simply runs again may start it
 * twice; the message says how to look. Any other error as it is.
 */
function startNotKnown(err: unknown, workflow: string): unknown {
  if (!(err instanceof UnreachableError) || !err.mayHaveReached) return err;
  return new UnreachableError(
    `${err.message}; whether the job started is not known: \`nap jobs list --workflow "${workflow}" --since 10m\` shows it if it did`,
    err.reason,
    { cause: err },
  );
}

export async function runWorkflow(ctx: Context, name: string, opts: RunOptions): Promise<void> {
  if (opts.timeout !== undefined) parseDuration(opts.timeout, '--timeout');
  const client = ctx.client();
  const workflows = findResource('workflows')!;
  const found = await mustFind(client, workflows, name);
  const options: Doc = { variables: await jobVariables(ctx, opts) };
  if (opts.description !== undefined) options.description = opts.description;
  const workflow = found.name ?? name;
  const res = await client
    .request({ method: 'POST', path: '/operations-manager/jobs/start', json: { workflow, options } })
    .catch((err: unknown) => {
      throw startNotKnown(err, workflow);
    });
  const job = unwrap(res.body);
  if (!isDoc(job)) throw new CliError('POST /operations-manager/jobs/start answered no job', EXIT.FAILED);
  await afterStart(ctx, client, job, opts);
}

/** Runs an automation through its manual trigger (with form data), else its endpoint trigger. */
export async function runAutomation(ctx: Context, name: string, opts: RunOptions): Promise<void> {
  if (opts.timeout !== undefined) parseDuration(opts.timeout, '--timeout');
  const client = ctx.client();
  const automation = await mustFind(client, findResource('automations')!, name);
  const res = await client.request({ method: 'GET', path: '/operations-manager/triggers', query: { actionId: automation.id, limit: 500 } });
  const triggers = itemsOf(res.body).filter((t) => t.enabled !== false);
  const runnable = triggers.filter((t) => t.type === 'manual' || t.type === 'endpoint');
  const chosen =
    opts.trigger !== undefined
      ? runnable.find((t) => t.name === opts.trigger || t._id === opts.trigger)
      : (runnable.find((t) => t.type === 'manual') ?? runnable.find((t) => t.type === 'endpoint'));
  if (chosen === undefined) {
    const named = opts.trigger === undefined ? '' : ` named "${opts.trigger}"`;
    throw new CliError(
      `automation "${automation.name ?? name}" has no enabled manual or endpoint trigger${named}; \`nap get triggers\` lists them`,
      EXIT.FAILED,
    );
  }
  let formData: Record<string, unknown> = {};
  if (opts.formData !== undefined) {
    const data = await readData(ctx, opts.formData, '--form-data');
    if (!isDoc(data)) throw usage('--form-data must be a JSON object (or @file holding one)');
    formData = data;
  }
  formData = { ...formData, ...(await jobVariables(ctx, { ...opts, formData: undefined })) };
  const start: ApiRequest =
    chosen.type === 'manual'
      ? { method: 'POST', path: pathOf('/operations-manager/triggers/manual/:id/run', { id: String(chosen._id) }), json: { formData } }
      : {
          method: 'POST',
          path: pathOf('/operations-manager/triggers/endpoint/:routeName', { routeName: String(chosen.routeName) }),
          json: formData,
        };
  const workflow = str(field(automation.doc, 'componentName')) ?? automation.name ?? name;
  const started = await client.send(start).catch((err: unknown) => {
    throw startNotKnown(err, workflow);
  });
  if (started.status >= 400) {
    const failure = client.failure(start, started);
    if (failure instanceof UnreachableError) throw startNotKnown(failure, workflow);
    // the trigger's schema (or form) refused the variables: say which flags give them
    if (started.status !== 400 || platformMessage(started.body).code !== 'VALIDATION_FAILED') throw failure;
    throw new CliError(
      `${failure.message}; give ${chosen.type} trigger "${String(chosen.name)}" what it asks with --var name=value or --form-data '{"name": "value"}'`,
      failure.exitCode,
    );
  }
  const job = unwrap(started.body);
  if (!isDoc(job)) throw new CliError(`the trigger "${String(chosen.name)}" answered no job`, EXIT.FAILED);
  await afterStart(ctx, client, job, opts);
}

export async function watchJob(ctx: Context, id: string, opts: { timeout?: string; quiet?: boolean }): Promise<void> {
  const client = ctx.client();
  const timeoutMs = opts.timeout === undefined ? undefined : parseDuration(opts.timeout, '--timeout');
  await followAndPrint(ctx, client, id, { progress: opts.quiet !== true, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}

const JOB_COLUMNS = (c: Colors) =>
  [
    { header: 'ID', value: (j: Doc) => j._id },
    { header: 'WORKFLOW', value: (j: Doc) => j.name },
    { header: 'STATUS', value: (j: Doc) => j.status, color: (t: string) => statusColor(t, c) },
    { header: 'STARTED', value: (j: Doc) => isoTime(field(j, 'metrics.start_time')) },
    {
      header: 'DURATION',
      value: (j: Doc) => {
        const s = field(j, 'metrics.start_time');
        const e = field(j, 'metrics.end_time');
        return typeof s === 'number' && typeof e === 'number' ? formatDuration(e - s) : undefined;
      },
    },
    { header: 'DESCRIPTION', value: (j: Doc) => j.description, prose: true },
  ] as const;

/** The states of a job, and of a task (as the platform's contracts list them: cli/test/limit.test.ts checks). */
export const JOB_STATUSES = ['running', 'paused', 'complete', 'error', 'canceled'] as const;
export const TASK_STATUSES = ['incomplete', 'pending', 'running', 'complete', 'error', 'canceled'] as const;

/** `--status a,b`: the states named, each one of `known`; a usage error naming those that are not. */
export function statusesOf(text: string, known: readonly string[], what: string): string[] {
  const named = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  const wrong = named.filter((s) => !known.includes(s));
  if (named.length === 0 || wrong.length > 0)
    throw usage(
      `--status ${text}: ${wrong.length === 0 ? 'no state named' : `${wrong.map((w) => `"${w}"`).join(', ')} ${wrong.length === 1 ? 'is' : 'are'} not ${an(what)} state`}; the states: ${known.join(', ')}`,
    );
  return named;
}

/**
 * After a list filtered by `--workflow NAME` came back empty: a workflow of that name must exist,
 * else it is "not found" as a trigger of `--trigger` is (jobs of a workflow deleted since are still
 * listed by its name).
 */
async function workflowMustExist(client: Client, name: string): Promise<void> {
  await mustFind(client, findResource('workflows')!, name);
}

export async function listJobs(
  ctx: Context,
  opts: { status?: string; workflow?: string; trigger?: string; since?: string; limit?: string },
): Promise<void> {
  const client = ctx.client();
  const limit = limitOption(opts.limit, 25);
  const query: Query = { limit, exclude: 'tasks,transitions,variables' };
  if (opts.status !== undefined) query['in[status]'] = statusesOf(opts.status, JOB_STATUSES, 'job').join(',');
  if (opts.workflow !== undefined) query['equals[name]'] = opts.workflow;
  // the jobs a trigger started name it (`trigger._id`); a name several triggers carry is refused with their ids
  if (opts.trigger !== undefined) query['equals[trigger._id]'] = (await mustFind(client, findResource('triggers')!, opts.trigger)).id;
  if (opts.since !== undefined) query['gte[metrics.start_time]'] = parseMoment(opts.since, '--since');
  const res = await client.request({ method: 'GET', path: '/operations-manager/jobs', query });
  const jobs = itemsOf(res.body);
  if (jobs.length === 0 && opts.workflow !== undefined) await workflowMustExist(client, opts.workflow);
  ctx.print(jobs, () => (jobs.length === 0 ? 'No jobs found.\n' : table(jobs, JOB_COLUMNS(ctx.colors), ctx.colors, ctx.width)));
}

function orderedTasks(job: Doc): [string, Doc][] {
  const tasks = isDoc(job.tasks) ? Object.entries(job.tasks).filter((e): e is [string, Doc] => isDoc(e[1])) : [];
  const at = (t: Doc, metric: string): number => {
    const s = field(t, `metrics.${metric}`);
    return typeof s === 'number' ? s : Number.MAX_SAFE_INTEGER;
  };
  // by start, then (tasks started in the same millisecond) by end, a task still running last
  return tasks
    .filter(([id]) => id !== 'workflow_start' && id !== 'workflow_end')
    .sort((a, b) => at(a[1], 'start_time') - at(b[1], 'start_time') || at(a[1], 'end_time') - at(b[1], 'end_time'));
}

/** Who started a job and, when a trigger did, which one: `started by admin, by schedule "Nightly backup" (id) due …`. */
function startedBy(job: Doc): string | undefined {
  const by = str(job.created_by);
  const trigger = isDoc(job.trigger) ? job.trigger : undefined;
  if (trigger === undefined) return by === undefined ? undefined : `started by ${by}`;
  const kind = triggerKind(String(trigger.type));
  const due = isoTime(trigger.due);
  return `started${by === undefined ? '' : ` as ${by}`} by ${kind} "${String(trigger.name ?? '')}" (${String(trigger._id)})${due === undefined ? '' : ` due ${due}`}`;
}

/** The task tree of a job, child jobs indented under the task that started them. */
async function renderJobTree(client: Client, job: Doc, c: Colors, depth: number, seen: Set<string>): Promise<string[]> {
  const pad = '  '.repeat(depth);
  const lines: string[] = [];
  const head = `${pad}${c.bold(`job ${String(job._id)}`)} ${String(job.name ?? '')} ${statusColor(String(job.status ?? ''), c)}${durationOf(job)}`;
  lines.push(depth === 0 && job.description !== undefined && job.description !== '' ? `${head}  ${c.dim(String(job.description))}` : head);
  const started = depth === 0 ? startedBy(job) : undefined;
  if (started !== undefined) lines.push(`  ${c.dim(started)}`);
  for (const [id, task] of orderedTasks(job)) {
    const status = String(task.status ?? 'pending');
    const summary = str(task.summary) ?? str(task.name) ?? id;
    const kind = task.type === 'manual' ? c.magenta(' [manual]') : '';
    lines.push(`${pad}  ${id.padEnd(8)} ${statusColor(status, c).padEnd(10)} ${summary}${kind}`);
    const error = taskError(task);
    if (error !== undefined && (status === 'error' || status === 'failure')) lines.push(`${pad}           ${c.red(error)}`);
    const children = Array.isArray(task.childJobs) ? task.childJobs.filter(isDoc) : [];
    for (const child of children) {
      const childId = str(child._id);
      if (childId === undefined || seen.has(childId)) continue;
      seen.add(childId);
      const childJob = await getJob(client, childId).catch(() => undefined);
      if (childJob === undefined) lines.push(`${pad}    job ${childId} (cannot be read)`);
      else lines.push(...(await renderJobTree(client, childJob, c, depth + 2, seen)));
    }
  }
  const errors = Array.isArray(job.error) ? job.error.filter(isDoc) : [];
  for (const e of errors) lines.push(`${pad}  ${c.red('error')} ${String(e.task ?? '')}: ${String(e.message ?? '')}`);
  return lines;
}

export async function describeJob(ctx: Context, id: string): Promise<void> {
  const client = ctx.client();
  const job = await getJob(client, id);
  if (ctx.format !== 'human') {
    ctx.print(job, () => '');
    return;
  }
  ctx.out((await renderJobTree(client, job, ctx.colors, 0, new Set([id]))).join('\n'));
}

/** Most jobs the platform cancels in one request. */
const CANCEL_BATCH = 1000;

export async function cancelJobs(ctx: Context, ids: string[]): Promise<void> {
  const client = ctx.client();
  const unique = [...new Set(ids)];
  const results: Doc[] = [];
  for (let at = 0; at < unique.length; at += CANCEL_BATCH) {
    const jobIds = unique.slice(at, at + CANCEL_BATCH);
    const res = await client.request({ method: 'POST', path: '/operations-manager/jobs/cancel', json: { jobIds } });
    results.push(...itemsOf(res.body));
  }
  // each job canceled on stdout, each one not canceled on stderr, as every failure
  ctx.print({ results }, () =>
    results
      .filter((r) => r.success === true)
      .map((r) => `canceled job ${String(r.jobId)}\n`)
      .join(''),
  );
  const failed = results.filter((r) => r.success !== true);
  if (failed.length === 0) return;
  const why = (r: Doc): string => `job ${String(r.jobId)} not canceled: ${String(r.message ?? 'refused')}`;
  if (results.length === 1) throw new CliError(why(failed[0]!), EXIT.FAILED);
  for (const r of failed) ctx.note(`nap: ${why(r)}`);
  throw new CliError(`${failed.length} of ${results.length} jobs not canceled`, EXIT.FAILED);
}

export async function pauseOrResume(ctx: Context, action: 'pause' | 'resume', ids: string[]): Promise<void> {
  const client = ctx.client();
  const answers: unknown[] = [];
  const done = action === 'pause' ? 'paused' : 'resumed';
  await eachItem(
    ctx,
    ids,
    { plural: 'jobs', done, item: 'id' },
    async (id) => {
      const req = { method: 'POST', path: pathOf(`/operations-manager/jobs/:jobId/${action}`, { jobId: id }) } as const;
      const res = await client.send(req);
      if (res.status === 401 || res.status === 403) throw client.failure(req, res);
      if (res.status >= 400) {
        const { code, message } = platformMessage(res.body);
        throw new CliError(`job ${id} not ${done}: ${message} (${res.status}${code === undefined ? '' : ` ${code}`})`, EXIT.FAILED);
      }
      const job = unwrap(res.body);
      answers.push(job);
      if (ctx.format === 'human') ctx.out(`${done} job ${id}${isDoc(job) ? ` (${String(job.status)})` : ''}`);
    },
    () => {
      if (ctx.format !== 'human' && answers.length > 0) ctx.print(ids.length === 1 ? answers[0] : answers, () => '');
    },
  );
}

/**
 * A task of a job by id, or by its summary or name when that is unique, or when only one of the
 * tasks so named is one the command acts on (`actionable`): a workflow may hold the same review
 * task twice, one waiting and one never reached (Command Template Runner).
 */
function taskIdOf(job: Doc, task: string, actionable?: (t: Doc) => boolean): string {
  const tasks = isDoc(job.tasks) ? job.tasks : {};
  if (task in tasks) return task;
  const matches = Object.entries(tasks).filter(([, t]) => isDoc(t) && (t.summary === task || t.name === task));
  if (matches.length === 1) return matches[0]![0];
  const ready = actionable === undefined ? [] : matches.filter(([, t]) => isDoc(t) && actionable(t));
  if (ready.length === 1) return ready[0]![0];
  if (matches.length > 1)
    throw usage(
      `job ${String(job._id)} has ${matches.length} tasks named "${task}": give the task id (${matches.map(([id]) => id).join(', ')})`,
    );
  throw new CliError(`job ${String(job._id)} has no task "${task}"; \`nap jobs describe ${String(job._id)}\` lists them`, EXIT.FAILED);
}

export async function retryTask(ctx: Context, jobId: string, task: string, opts: { var?: string[] }): Promise<void> {
  const client = ctx.client();
  const job = await getJob(client, jobId);
  // a task that stopped the job: in error, or finished as an error or a failure
  const taskId = taskIdOf(
    job,
    task,
    (t) => t.status === 'error' || ['error', 'failure'].includes(String(field(t, 'metrics.finish_state'))),
  );
  const variables = Object.fromEntries(Object.entries(parseVars(opts.var)).map(([k, v]) => [k, { value: v }]));
  const res = await client.request({
    method: 'POST',
    path: pathOf('/workflow_engine/jobs/:jobId/retryTask', { jobId }),
    json: { taskId, variables },
  });
  const retried = unwrap(res.body);
  ctx.print(retried, () => `retried task ${taskId} of job ${jobId}${isDoc(retried) ? ` (job ${String(retried.status)})` : ''}`);
}

export async function listTasks(
  ctx: Context,
  opts: { status?: string; job?: string; workflow?: string; all?: boolean; limit?: string },
): Promise<void> {
  const client = ctx.client();
  const query: Query = { limit: limitOption(opts.limit, 50) };
  // one state: the tasks route filters a task's status with equals[status] (in[status] finds none)
  const status = opts.status === undefined ? undefined : statusesOf(opts.status, TASK_STATUSES, 'task');
  if (status !== undefined && status.length > 1) throw usage(`--status ${opts.status}: one state, one of ${TASK_STATUSES.join(', ')}`);
  if (opts.all !== true) {
    query['equals[type]'] = 'manual';
    query['equals[status]'] = status?.[0] ?? 'running';
    // only jobs that can still wait for a person: the platform then reads every such job, however old
    query['in[job.status]'] = 'running,paused';
  } else if (status !== undefined) query['equals[status]'] = status[0];
  if (opts.job !== undefined) query['equals[job._id]'] = opts.job;
  if (opts.workflow !== undefined) query['equals[job.name]'] = opts.workflow;
  const res = await client.request({ method: 'GET', path: '/operations-manager/tasks', query });
  const tasks = itemsOf(res.body);
  if (tasks.length === 0 && opts.workflow !== undefined) await workflowMustExist(client, opts.workflow);
  const metadata = isDoc(res.body) && isDoc(res.body.metadata) ? res.body.metadata : undefined;
  if (metadata?.bounded === true)
    ctx.note(
      `Only the ${String(metadata.searchedJobs ?? 'newest')} newest jobs were searched: name a job (--job) to search it whatever its age.`,
    );
  const c = ctx.colors;
  ctx.print(tasks, () =>
    tasks.length === 0
      ? opts.all === true
        ? 'No tasks found.\n'
        : 'No manual task is waiting.\n'
      : table(
          tasks,
          [
            { header: 'JOB', value: (t: Doc) => field(t, 'job._id') },
            { header: 'TASK', value: (t: Doc) => t.id },
            { header: 'SUMMARY', value: (t: Doc) => t.summary ?? t.name },
            { header: 'TYPE', value: (t: Doc) => t.type },
            { header: 'STATUS', value: (t: Doc) => t.status, color: (s: string) => statusColor(s, c) },
            { header: 'WORKFLOW', value: (t: Doc) => field(t, 'job.name') },
            { header: 'STARTED', value: (t: Doc) => isoTime(field(t, 'metrics.start_time')) },
          ],
          c,
          ctx.width,
        ),
  );
}

export async function finishTask(ctx: Context, jobId: string, task: string, opts: { var?: string[]; failure?: boolean }): Promise<void> {
  const client = ctx.client();
  const job = await getJob(client, jobId);
  // a manual task waiting for a person
  const taskId = taskIdOf(job, task, (t) => t.status === 'running');
  const variables: Record<string, unknown> = { ...parseVars(opts.var) };
  if (opts.failure === true) variables.finish_state = 'failure';
  const res = await client.request({
    method: 'POST',
    path: pathOf('/operations-manager/jobs/:jobId/tasks/:taskId/finish', { jobId, taskId }),
    json: { variables },
  });
  const after = unwrap(res.body);
  ctx.print(after, () => `finished task ${taskId} of job ${jobId}${opts.failure === true ? ' with failure' : ''}`);
}

/** A time of an archive (epoch ms or ISO 8601) to the second, in UTC, as every time nap prints. */
function timeText(value: unknown): string | undefined {
  return isoTime(value)?.replace(/\.\d+Z$/, 'Z');
}

function plural(n: unknown, word: string): string {
  return `${String(n ?? 0)} ${word}${n === 1 ? '' : 's'}`;
}

function archiveStateColor(state: string, c: Colors): string {
  return state === 'deleted' ? c.dim(state) : statusColor(state, c);
}

/** One archive on one line: `archive ID complete: 12 jobs (10 root jobs) that ended before T (complete, error), 3.4 KiB`. */
function archiveLine(a: Doc, c: Colors): string {
  const id = String(a._id ?? '?');
  const state = String(a.state ?? '');
  const statuses = Array.isArray(a.statuses) ? a.statuses.map(String).join(', ') : '';
  const which = `that ended before ${timeText(a.before) ?? '?'}${statuses === '' ? '' : ` (${statuses})`}`;
  const what = `${plural(a.jobs, 'job')} (${plural(a.roots, 'root job')}) ${which}`;
  const head = `archive ${id} ${archiveStateColor(state, c)}`;
  if (state === 'running') return `${head}: moving the finished root jobs ${which} into it, ${plural(a.jobs, 'job')} so far`;
  if (state === 'deleted')
    return `${head} on ${timeText(a.deletedAt) ?? '?'} by ${String(a.deletedBy ?? '?')}: it held ${what}; its file is gone`;
  return `${head}: ${what}, ${typeof a.bytes === 'number' ? bytesText(a.bytes) : '?'}`;
}

/** One archive by id, as the list answers it; undefined when there is none. */
async function findArchive(client: Client, id: string): Promise<Doc | undefined> {
  const res = await client.request({ method: 'GET', path: '/operations-manager/jobs/archives', query: { 'equals[_id]': id, limit: 1 } });
  return itemsOf(res.body)[0];
}

async function mustFindArchive(client: Client, id: string): Promise<Doc> {
  const archive = await findArchive(client, id);
  if (archive === undefined) throw new CliError(`no job archive ${id} on ${client.url}; \`nap jobs archives\` lists them`, EXIT.FAILED);
  return archive;
}

/** `--status complete,error`: the statuses named, each a finished one; undefined for every finished status. */
function archiveStatuses(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const statuses = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  const wrong = statuses.filter((s) => !(ARCHIVABLE_JOB_STATUSES as readonly string[]).includes(s));
  if (statuses.length === 0 || wrong.length > 0)
    throw usage(
      `--status ${text}: expected finished statuses, comma-separated: ${ARCHIVABLE_JOB_STATUSES.join(', ')} (a running or paused job is never archived)`,
    );
  return statuses;
}

/** Polls the archive until it is complete; a deadline passed is exit 3, as for a job still running. */
async function waitForArchive(ctx: Context, client: Client, archive: Doc, timeoutMs: number | undefined): Promise<Doc> {
  const id = String(archive._id);
  const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  let current = archive;
  let pause = 200;
  return ctx.spin(`archiving jobs into ${id}`, async () => {
    while (current.state === 'running') {
      if (deadline !== undefined && Date.now() >= deadline)
        throw new CliError(
          `archive ${id} is still running after ${formatDuration(timeoutMs ?? 0)} (--timeout), ${plural(current.jobs, 'job')} so far; \`nap jobs archives\` shows when it is complete`,
          EXIT.STILL_RUNNING,
        );
      const wait = deadline === undefined ? pause : Math.max(0, Math.min(pause, deadline - Date.now()));
      await new Promise((resolve) => setTimeout(resolve, wait));
      pause = Math.min(pause * 2, 2000);
      current = await mustFindArchive(client, id);
    }
    return current;
  });
}

export interface ArchiveOptions {
  before?: string;
  status?: string;
  wait?: boolean;
  timeout?: string;
}

/**
 * `nap jobs archive --before T`: asks for an archive of the finished root jobs (with their child
 * jobs) that ended before T (`POST /operations-manager/jobs/archive`); the platform fills it in the
 * background. `--wait` (or `--timeout`) polls it until it is complete.
 */
export async function archiveJobs(ctx: Context, opts: ArchiveOptions): Promise<void> {
  if (opts.before === undefined) throw usage('--before is required: an ISO 8601 date or time (2026-09-01), or a duration ago (90d)');
  const before = parseMoment(opts.before, '--before');
  const statuses = archiveStatuses(opts.status);
  const timeoutMs = opts.timeout === undefined ? undefined : parseDuration(opts.timeout, '--timeout');
  const client = ctx.client();
  const body: Doc = { before: new Date(before).toISOString() };
  if (statuses !== undefined) body.status = statuses.length === 1 ? statuses[0] : statuses;
  const res = await client.request({ method: 'POST', path: '/operations-manager/jobs/archive', json: body });
  const archive = unwrap(res.body);
  if (!isDoc(archive) || str(archive._id) === undefined)
    throw new CliError('POST /operations-manager/jobs/archive answered no archive', EXIT.FAILED);
  const id = String(archive._id);
  if (opts.wait !== true && timeoutMs === undefined) {
    ctx.print(archive, () => archiveLine(archive, ctx.colors));
    if (ctx.format === 'human')
      ctx.note(`\`nap jobs archives\` shows when it is complete; \`nap jobs archive-download ${id}\` then saves its file`);
    return;
  }
  const done = await waitForArchive(ctx, client, archive, timeoutMs);
  ctx.print(done, () => archiveLine(done, ctx.colors));
  if (ctx.format === 'human') ctx.note(`\`nap jobs archive-download ${id}\` saves its file`);
}

/** `nap jobs archives`: the job archives, newest first, made on request or by the retention. */
export async function listArchives(ctx: Context, opts: { state?: string; limit?: string }): Promise<void> {
  if (opts.state !== undefined && !(JOB_ARCHIVE_STATES as readonly string[]).includes(opts.state))
    throw usage(`--state ${opts.state}: expected one of ${JOB_ARCHIVE_STATES.join(', ')}`);
  const query: Query = { limit: limitOption(opts.limit, 25), 'equals[state]': opts.state };
  const res = await ctx.client().request({ method: 'GET', path: '/operations-manager/jobs/archives', query });
  const archives = itemsOf(res.body);
  const c = ctx.colors;
  const anyDeleted = archives.some((a) => a.state === 'deleted');
  ctx.print(archives, () =>
    archives.length === 0
      ? 'No job archives found.\n'
      : table(
          archives,
          [
            { header: 'ID', value: (a: Doc) => a._id },
            { header: 'STATE', value: (a: Doc) => a.state, color: (s: string) => archiveStateColor(s, c) },
            { header: 'ORIGIN', value: (a: Doc) => a.origin },
            { header: 'JOBS', value: (a: Doc) => a.jobs },
            { header: 'ROOTS', value: (a: Doc) => a.roots },
            { header: 'SIZE', value: (a: Doc) => (typeof a.bytes === 'number' ? bytesText(a.bytes) : undefined) },
            { header: 'BEFORE', value: (a: Doc) => timeText(a.before) },
            { header: 'COMPLETED', value: (a: Doc) => timeText(a.completedAt) },
            ...(anyDeleted
              ? [
                  {
                    header: 'DELETED',
                    value: (a: Doc) =>
                      a.state === 'deleted' ? `${timeText(a.deletedAt) ?? '?'} by ${String(a.deletedBy ?? '?')}` : undefined,
                  },
                ]
              : []),
          ],
          c,
          ctx.width,
        ),
  );
}

/** The file an archive is saved as when no --file is given: `<id>.ndjson.gz` in the working folder. */
function defaultArchiveFile(id: string): string {
  if (id === '' || id.startsWith('.') || id !== path.basename(id) || id.includes('\\'))
    throw usage(`${id}: not an archive id (\`nap jobs archives\` lists them)`);
  return `${id}.ndjson.gz`;
}

/**
 * `nap jobs archive-download ID`: saves the archive's file (`GET
 * /operations-manager/jobs/archives/:archiveId`, gzip of one job a line) byte for byte: written to
 * `<file>.part` first and renamed once whole, so that a cut download leaves no file that looks
 * whole. An existing file is kept unless `--force`; `--file -` writes to stdout (a pipe).
 */
export async function downloadArchive(ctx: Context, id: string, opts: { file?: string; force?: boolean }): Promise<void> {
  const route = { method: 'GET', path: pathOf('/operations-manager/jobs/archives/:archiveId', { archiveId: id }) } as const;
  if (opts.file === '-') {
    if (ctx.io.stdout.isTTY === true)
      throw usage('--file - writes the gzip file to stdout, which is a terminal: pipe it (| gunzip) or name a file');
    const stdout = ctx.io.stdout;
    const { bytes } = await ctx.client().download(route, async (chunk) => {
      if (!stdout.write(chunk)) await once(stdout, 'drain');
    });
    ctx.note(`wrote archive ${id} to stdout (${bytes} bytes, ${bytesText(bytes)})`);
    return;
  }
  const file = opts.file ?? defaultArchiveFile(id);
  const exists = (): boolean => existsSync(file);
  if (opts.force !== true && exists()) throw usage(`${file} exists: nap does not overwrite it without --force`);
  const part = `${file}.part`;
  let out: WriteStream;
  try {
    out = createWriteStream(part);
    await once(out, 'open');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usage(`cannot write ${file}: ${code === 'ENOENT' ? 'no such folder' : (code ?? (err as Error).message)}`);
  }
  // a write that fails later (a full disk) is said once the download stops
  let writeError: Error | undefined;
  out.on('error', (err) => (writeError ??= err));
  const client = ctx.client();
  let bytes: number;
  try {
    ({ bytes } = await ctx.spin(`downloading archive ${id}`, () =>
      client.download(route, async (chunk) => {
        if (writeError !== undefined) throw writeError;
        if (!out.write(chunk)) await once(out, 'drain');
      }),
    ));
    out.end();
    // written and closed (or failed: finished rejects with the error, even one emitted already)
    await finished(out);
    if (writeError !== undefined) throw writeError;
  } catch (err) {
    out.destroy();
    rmSync(part, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    if (!(err instanceof CliError) && typeof code === 'string')
      throw new CliError(`cannot write ${file}: ${code}`, EXIT.FAILED, { cause: err });
    throw err;
  }
  if (opts.force !== true && exists()) {
    rmSync(part, { force: true });
    throw usage(`${file} appeared while downloading: nap does not overwrite it without --force`);
  }
  renameSync(part, file);
  const saved = { archive: id, file: path.resolve(file), bytes };
  ctx.print(saved, () => `saved archive ${id} to ${file} (${bytes} bytes, ${bytesText(bytes)}; gzip of one job a line)`);
}

/**
 * `nap jobs archive-delete ID`: deletes an archive's file on the platform (`DELETE
 * /operations-manager/jobs/archives/:archiveId`); the archive stays listed as deleted. Nothing
 * brings the file back, so it asks first on a terminal, and wants `--yes` elsewhere.
 */
export async function deleteArchive(ctx: Context, id: string, opts: { yes?: boolean }): Promise<void> {
  if (opts.yes !== true && !ctx.stdinIsTerminal())
    throw usage(`stdin is not a terminal, so nap cannot ask to confirm: add --yes to delete the file of archive ${id}`);
  const client = ctx.client();
  const found = await mustFindArchive(client, id);
  const already = found.state === 'deleted';
  if (!already && found.state !== 'running')
    await confirmOrStop(
      ctx,
      opts,
      `Delete the file of archive ${id} (${plural(found.jobs, 'job')}, ${typeof found.bytes === 'number' ? bytesText(found.bytes) : '?'})? Nothing brings it back; download it first.`,
      `archive ${id} was not deleted`,
    );
  const res = await client.request({ method: 'DELETE', path: pathOf('/operations-manager/jobs/archives/:archiveId', { archiveId: id }) });
  const deleted = unwrap(res.body);
  const a = isDoc(deleted) ? deleted : found;
  ctx.print(deleted, () =>
    already
      ? `archive ${id} was already deleted on ${timeText(a.deletedAt) ?? '?'} by ${String(a.deletedBy ?? '?')}`
      : `deleted archive ${id} (${plural(a.jobs, 'job')}): the platform no longer has its file, so keep your downloaded copy elsewhere`,
  );
}
