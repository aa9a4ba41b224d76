import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  AppError,
  MIN_SECRET_CHARS,
  addFoundSecrets,
  addSecretTexts,
  findSecrets,
  isValid,
  noSecrets,
  secretMask,
  templateWorkerNotReadySchema,
  templateWorkerReadySchema,
  templateWorkerReplySchema,
} from '@nap/contracts';
import type { FoundSecrets, JinjaProfile, TemplateWorkerError } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';

/** What a worker is asked to do (the `op` of a request line), with its members. */
export type WorkerRequest =
  | { op: 'render'; template: string; context: Record<string, unknown>; profile: JinjaProfile }
  | { op: 'parse'; template: string; text: string }
  | { op: 'echo'; value: unknown };

/** A worker's answer: the value, or why it could not produce one. */
export type WorkerReply = { ok: true; value: unknown } | { ok: false; error: TemplateWorkerError };

/** Options of {@link createTemplatePool}. */
export interface TemplatePoolOptions {
  /** The Python interpreter (it needs the jinja2 and textfsm modules). */
  python: string;
  /** The worker script (`template_worker.py`). */
  script: string;
  /** Worker processes; each answers one request at a time. */
  size: number;
  /** Longest one request may run once a worker has it, in ms; the worker is then killed and replaced. */
  timeoutMs: number;
  /** Largest rendered text (UTF-8 bytes), or serialized TextFSM records. */
  maxOutputBytes: number;
  /** Address space a worker may use (RLIMIT_AS), in bytes. */
  memoryBytes: number;
  /** Requests waiting for a worker beyond which new ones are answered 503 at once. */
  maxQueue: number;
  /** Longest a starting worker may take to say it is ready, in ms. */
  startTimeoutMs?: number;
  logger?: Logger;
}

/** A pool of long-lived Python processes that render Jinja2 and parse TextFSM (JSON lines over stdio). */
export interface TemplatePool {
  /**
   * Sends one request to the next free worker. Resolves with the worker's reply (a failure's
   * message with the secrets of a render's context masked: see {@link requestSecrets}); rejects with
   * `TEMPLATE_TIMEOUT` (422) when the request ran longer than the limit (its worker is killed and
   * replaced) and `TEMPLATE_RENDERER_UNAVAILABLE` (503) when no worker can take it: Python or a
   * module is missing, the worker died with the request, the queue is full, the pool is closing.
   * `deadline` (epoch ms): when the caller stops waiting. A request still waiting for a worker then
   * is rejected with `TIMEOUT` (504) and never run, so that work nobody waits for does not hold the
   * workers while the requests behind it wait. `owner` (who asks: an account id): a free worker takes
   * the oldest waiting request of the owner with the fewest on workers now, so that one caller's many
   * (a loop that never ends, sent again and again) hold the others back by one request at most.
   */
  request(req: WorkerRequest, subject: string, deadline?: number, owner?: string): Promise<WorkerReply>;
  /** Workers started to replace one that died or was killed, since the pool was created. */
  readonly restarts: number;
  /** Versions the workers reported (`python`, `jinja2`, `textfsm`), once one has started. */
  readonly versions: Readonly<Record<string, string>> | undefined;
  /** Kills the worker processes (for tests that show a dead worker is replaced). */
  killWorkers(signal?: NodeJS.Signals): number;
  close(): Promise<void>;
}

/** The one command that turns templates on (Debian's python3-jinja2 and python3-textfsm); `sudo` unless this process is root. */
export const TEMPLATES_INSTALL_COMMAND = `${process.getuid?.() === 0 ? '' : 'sudo '}apt-get install -y python3-jinja2 python3-textfsm`;

/** What to do about it, in every message that says templates cannot run. */
export const INSTALL_HINT = `turn templates on with \`${TEMPLATES_INSTALL_COMMAND}\` (no restart needed), or point NAP_PYTHON at a Python 3 that has the jinja2 and textfsm modules`;
/** Consecutive workers that die before they are ready, after which the pool stops trying for a while. */
const FAILED_STARTS_LIMIT = 3;
const RETRY_AFTER_MS = 5_000;
/** Characters of a worker's stderr that logs and messages show: its end, masked before it is cut. */
const STDERR_TAIL = 2_000;
/** Characters of a worker's stderr kept (its end), so that what is shown is masked whole before it is cut to {@link STDERR_TAIL}. */
const STDERR_KEEP = 16_000;
/**
 * Secret texts and pairs a worker keeps for masking its stderr, beyond which the stderr kept so far
 * is dropped: a worker that wrote once and then served many renders would otherwise keep them all.
 */
const MAX_STDERR_SECRETS = 1_000;
/** Owners whose last service {@link createTemplatePool}'s fair dispatch remembers at once. */
const MAX_OWNERS_SERVED = 10_000;

interface Job {
  id: number;
  line: string;
  /** How messages name what the request works on (`Template "x"`). */
  subject: string;
  /** The secrets of what the request carries, masked in what the worker says while it works on it. */
  secrets: FoundSecrets;
  /** Epoch ms after which the caller no longer waits; the job is then dropped unless a worker has it. */
  deadline?: number;
  /** Who asked (an account id): the workers are shared out fairly between those who ask (see `takeNext`). */
  owner?: string;
  resolve(reply: WorkerReply): void;
  reject(err: AppError): void;
}

interface Worker {
  child: ChildProcess;
  ready: boolean;
  /** Set once the pool gave up on this worker (killed, protocol error, exited): its output is ignored. */
  gone: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
  buffer: string;
  /** The end of what the worker wrote to stderr, as written (at most {@link STDERR_KEEP} characters). */
  stderr: string;
  /** Some of the stderr was dropped: what is kept starts where the cut fell. */
  stderrCut: boolean;
  /**
   * The secrets the kept stderr and the next stdout may hold: those of every request the worker
   * was given while its stderr held something, and of the one before (its last writes to stderr
   * can arrive after its answer).
   */
  secrets: FoundSecrets;
  /** The secrets of the last request the worker was given. */
  lastSecrets: FoundSecrets;
}

/**
 * The secrets a request carries: by the platform's policy, the values of the secret-named variables
 * of a render's context (a device password given to a config template), at any depth, also as
 * Python writes them in its messages (`repr`: `'dict object' has no attribute 'pa\\ss'`). A parse
 * carries none by name; private key material is masked in any case.
 */
function requestSecrets(req: WorkerRequest): FoundSecrets {
  if (req.op !== 'render') return noSecrets();
  const found = findSecrets(req.context);
  for (const text of [...found.texts]) addSecretTexts(found, ...pythonReprForms(text));
  return found;
}

/**
 * How Python's `repr` writes `text` between its quotes, where that differs from `text`: a backslash
 * doubled, `\n`, `\r`, `\t` and other characters it does not print escaped (`\x07`), and the quote
 * escaped when the text holds both (`'` between `"` otherwise, not escaped).
 */
function pythonReprForms(text: string): string[] {
  const forms = new Set<string>();
  for (const quote of ["'", '"']) {
    let out = '';
    for (const ch of text) {
      const code = ch.codePointAt(0) ?? 0;
      if (ch === '\\') out += '\\\\';
      else if (ch === quote) out += `\\${quote}`;
      else if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else if (code < 0x20 || (code >= 0x7f && code <= 0xa0)) out += `\\x${code.toString(16).padStart(2, '0')}`;
      else out += ch;
    }
    if (out !== text) forms.add(out);
  }
  return [...forms];
}

/** What a worker wrote to stderr, the secrets it may hold masked before the end shown is cut. */
function stderrOf(worker: Worker): string {
  if (worker.stderr === '') return '';
  const mask = secretMask(worker.secrets);
  // a cut can fall inside a secret: `tail` masks its end, and an end too short for any mask to find is dropped
  const masked = worker.stderrCut ? mask.tail(worker.stderr).slice(MIN_SECRET_CHARS - 1) : mask.text(worker.stderr);
  return masked.slice(-STDERR_TAIL);
}

function unavailable(message: string, cause?: unknown): AppError {
  return new AppError('TEMPLATE_RENDERER_UNAVAILABLE', message, cause === undefined ? {} : { cause });
}

/**
 * Starts (lazily, on the first request) `size` Python workers running `script`. A request goes to
 * a free worker, or waits in a queue. A worker that runs longer than `timeoutMs` on one request is
 * killed (SIGKILL) and replaced, and the request is answered `TEMPLATE_TIMEOUT`; a worker that dies
 * is replaced, and the request it held is answered 503. When Python or a module is missing, or
 * workers die on start three times in a row, requests are answered 503 saying what to install, and
 * the pool tries again after five seconds.
 */
export function createTemplatePool(options: TemplatePoolOptions): TemplatePool {
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const workers: Worker[] = [];
  const queue: Job[] = [];
  /** When each owner's last job went to a worker (a count of jobs dispatched), for {@link takeNext}. */
  const served = new Map<string | undefined, number>();
  let servings = 0;
  let nextId = 1;
  let restarts = 0;
  let started = false;
  let closed = false;
  let failedStarts = 0;
  /** Why the pool cannot work right now, and until when it does not try again. */
  let down: { reason: string; until: number } | undefined;
  let versions: Record<string, string> | undefined;

  function spawnWorker(): Worker {
    const args = [
      '-I',
      options.script,
      '--max-output-bytes',
      String(options.maxOutputBytes),
      '--memory-bytes',
      String(options.memoryBytes),
    ];
    const child = spawn(options.python, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const worker: Worker = {
      child,
      ready: false,
      gone: false,
      buffer: '',
      stderr: '',
      stderrCut: false,
      secrets: noSecrets(),
      lastSecrets: noSecrets(),
    };
    worker.timer = setTimeout(() => giveUp(worker, `did not start within ${startTimeoutMs} ms`), startTimeoutMs);
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => onData(worker, chunk));
    child.stderr?.on('data', (chunk: string) => {
      worker.stderr += chunk;
      if (worker.stderr.length > STDERR_KEEP) {
        worker.stderr = worker.stderr.slice(-STDERR_KEEP);
        worker.stderrCut = true;
      }
    });
    // A write to a worker that just died fails with EPIPE; its exit handler answers the request.
    child.stdin?.on('error', () => undefined);
    child.on('error', (err: NodeJS.ErrnoException) => {
      const reason =
        err.code === 'ENOENT'
          ? `Python was not found at "${options.python}": ${INSTALL_HINT}`
          : `Python at "${options.python}" could not be started (${err.message}): ${INSTALL_HINT}`;
      markDown(reason);
      retire(worker, reason);
    });
    child.on('exit', (code, signal) => onExit(worker, code, signal));
    return worker;
  }

  function onData(worker: Worker, chunk: string): void {
    if (worker.gone) return;
    worker.buffer += chunk;
    if (worker.buffer.length > options.maxOutputBytes * 6 + 65_536) {
      giveUp(worker, 'answered more than the output limit allows');
      return;
    }
    let newline = worker.buffer.indexOf('\n');
    while (newline !== -1 && !worker.gone) {
      const line = worker.buffer.slice(0, newline);
      worker.buffer = worker.buffer.slice(newline + 1);
      onLine(worker, line);
      newline = worker.buffer.indexOf('\n');
    }
  }

  function onLine(worker: Worker, line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      // masked whole, then cut: the line can hold what the request carried
      giveUp(worker, `wrote a line that is not JSON: ${secretMask(worker.secrets).text(line).slice(0, 200)}`);
      return;
    }
    if (!worker.ready) {
      if (isValid(templateWorkerReadySchema, message)) {
        clearTimeout(worker.timer);
        worker.ready = true;
        failedStarts = 0;
        down = undefined;
        versions ??= { python: message.python, jinja2: message.jinja2, textfsm: message.textfsm };
        dispatch();
      } else if (isValid(templateWorkerNotReadySchema, message)) {
        markDown(
          `Python at "${options.python}" lacks the module ${message.missing === null ? '' : `"${message.missing}" `}(${message.error}): ${INSTALL_HINT}`,
        );
        retire(worker, 'is missing a module');
      } else giveUp(worker, 'did not say it was ready');
      return;
    }
    const job = worker.job;
    if (job === undefined || !isValid(templateWorkerReplySchema, message) || (message.id !== job.id && message.id !== null)) {
      giveUp(worker, 'answered a request it was not given');
      return;
    }
    clearTimeout(worker.timer);
    worker.job = undefined;
    // the value is what was asked for (a rendered configuration holds the password it was given); a failure is not
    if (message.ok === true) job.resolve({ ok: true, value: message.value });
    else if (message.error !== undefined) job.resolve({ ok: false, error: secretMask(job.secrets).value(message.error) });
    else job.reject(new AppError('INTERNAL', 'A template worker answered a failure without saying why'));
    dispatch();
  }

  /** Kills a worker the pool no longer trusts; its exit starts a replacement. */
  function giveUp(worker: Worker, why: string): void {
    if (worker.gone) return;
    options.logger?.warn({ why, stderr: stderrOf(worker) }, 'Template worker killed');
    retire(worker, `The template worker ${why}; it is being restarted, try again`);
    worker.child.kill('SIGKILL');
  }

  /** Takes a worker out of service; the request it held is answered 503 with `reason`. */
  function retire(worker: Worker, reason: string): void {
    if (worker.gone) return;
    worker.gone = true;
    clearTimeout(worker.timer);
    const index = workers.indexOf(worker);
    if (index !== -1) workers.splice(index, 1);
    const job = worker.job;
    worker.job = undefined;
    if (job !== undefined) job.reject(unavailable(reason));
    if (!worker.ready) failedStarts += 1;
    if (failedStarts >= FAILED_STARTS_LIMIT && down === undefined)
      markDown(`Template workers exit as they start (${stderrOf(worker).trim().split('\n').pop() ?? 'no output'}): ${INSTALL_HINT}`);
    if (down !== undefined) {
      failQueue(down.reason);
      return;
    }
    replenish();
  }

  function onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    if (!worker.gone) {
      options.logger?.warn({ code, signal, stderr: stderrOf(worker) }, 'Template worker exited');
      retire(
        worker,
        `The template worker stopped (${signal ?? `exit code ${code ?? 'unknown'}`}) while working on this request; it is being restarted, try again`,
      );
    }
  }

  function markDown(reason: string): void {
    down = { reason, until: Date.now() + RETRY_AFTER_MS };
    options.logger?.error({ python: options.python }, reason);
    failQueue(reason);
  }

  function failQueue(reason: string): void {
    for (const job of queue.splice(0)) job.reject(unavailable(reason));
  }

  /** Starts workers until the pool has `size` again. */
  function replenish(): void {
    if (closed || down !== undefined) return;
    while (workers.length < options.size) {
      const replacing = started;
      workers.push(spawnWorker());
      if (replacing) restarts += 1;
    }
  }

  /** Rejects (and takes out of the queue) the waiting jobs whose caller no longer waits. */
  function dropExpired(): void {
    const now = Date.now();
    for (let i = queue.length - 1; i >= 0; i--) {
      const job = queue[i] as Job;
      if (job.deadline === undefined || job.deadline > now) continue;
      queue.splice(i, 1);
      job.reject(
        new AppError(
          'TIMEOUT',
          `${job.subject} waited for a free template worker until its request's deadline passed, and was not run: ` +
            `all ${options.size} workers (NAP_TEMPLATE_WORKERS) were busy`,
        ),
      );
    }
  }

  function dispatch(): void {
    dropExpired();
    for (const worker of workers) {
      if (queue.length === 0) return;
      if (!worker.ready || worker.gone || worker.job !== undefined) continue;
      const job = takeNext();
      assign(worker, job);
      worker.timer = setTimeout(() => onTimeout(worker, job), options.timeoutMs);
      worker.child.stdin?.write(job.line);
    }
  }

  /**
   * Takes the next job out of the queue: of the owners waiting, the one with the fewest jobs on
   * workers now and, among those, the one served longest ago; its oldest job. So one owner's many
   * (a loop that never ends, sent again and again) keep another's request waiting for one of theirs
   * at most, however many they queued first.
   */
  function takeNext(): Job {
    let best = 0;
    let bestRunning = Number.POSITIVE_INFINITY;
    let bestServed = Number.POSITIVE_INFINITY;
    for (let i = 0; i < queue.length; i++) {
      const owner = (queue[i] as Job).owner;
      let running = 0;
      for (const worker of workers) if (worker.job !== undefined && worker.job.owner === owner) running += 1;
      const lastServed = served.get(owner) ?? 0;
      if (running < bestRunning || (running === bestRunning && lastServed < bestServed)) {
        best = i;
        bestRunning = running;
        bestServed = lastServed;
      }
    }
    const [job] = queue.splice(best, 1) as [Job];
    // owners come and go: past this many remembered, fairness starts again from nothing
    if (served.size >= MAX_OWNERS_SERVED && !served.has(job.owner)) served.clear();
    served.set(job.owner, ++servings);
    return job;
  }

  /** Gives `job` to `worker`, whose output may then hold the job's secrets. */
  function assign(worker: Worker, job: Job): void {
    worker.job = job;
    // nothing kept in stderr: no earlier request but the last can be in what comes next
    if (worker.stderr === '') worker.secrets = noSecrets(worker.lastSecrets);
    addFoundSecrets(worker.secrets, job.secrets);
    if (worker.secrets.texts.size + worker.secrets.pairs.size > MAX_STDERR_SECRETS) {
      worker.stderr = '';
      worker.stderrCut = true;
      worker.secrets = addFoundSecrets(noSecrets(worker.lastSecrets), job.secrets);
    }
    worker.lastSecrets = job.secrets;
  }

  function onTimeout(worker: Worker, job: Job): void {
    if (worker.job !== job) return;
    worker.job = undefined;
    job.reject(
      new AppError(
        'TEMPLATE_TIMEOUT',
        `${job.subject} ran longer than the limit of ${options.timeoutMs} ms (NAP_TEMPLATE_TIMEOUT_MS) and was stopped; look for a loop that does not end`,
        {
          details: { limitMs: options.timeoutMs },
        },
      ),
    );
    // the worker counts as ready: its replacement is a restart, not a failed start
    giveUp(worker, `ran longer than ${options.timeoutMs} ms`);
  }

  return {
    get restarts() {
      return restarts;
    },
    get versions() {
      return versions;
    },
    request(req, subject, deadline, owner) {
      if (closed) return Promise.reject(unavailable('The template renderer is stopping'));
      if (down !== undefined) {
        if (Date.now() < down.until) return Promise.reject(unavailable(down.reason));
        down = undefined;
        failedStarts = 0;
      }
      dropExpired();
      if (queue.length >= options.maxQueue)
        return Promise.reject(unavailable(`The template renderer is busy: ${queue.length} requests wait for a worker; try again`));
      replenish();
      started = true;
      return new Promise<WorkerReply>((resolve, reject) => {
        const id = nextId++;
        const job: Job = { id, line: `${JSON.stringify({ id, ...req })}\n`, subject, secrets: requestSecrets(req), resolve, reject };
        if (deadline !== undefined) job.deadline = deadline;
        if (owner !== undefined) job.owner = owner;
        queue.push(job);
        dispatch();
      });
    },
    killWorkers(signal = 'SIGKILL') {
      let killed = 0;
      for (const worker of workers) if (worker.child.kill(signal)) killed += 1;
      return killed;
    },
    async close() {
      closed = true;
      failQueue('The template renderer is stopping');
      const exits = workers.splice(0).map(async (worker) => {
        const job = worker.job;
        worker.job = undefined;
        worker.gone = true;
        clearTimeout(worker.timer);
        job?.reject(unavailable('The template renderer is stopping'));
        if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => worker.child.once('exit', () => resolve()));
        worker.child.stdin?.end();
        const kill = setTimeout(() => worker.child.kill('SIGKILL'), 1_000);
        await exited;
        clearTimeout(kill);
      });
      await Promise.all(exits);
    },
  };
}
