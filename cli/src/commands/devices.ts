import type { Colors } from 'picocolors/types';
import { outcomeVerdict, templateOutcome } from '@nap/contracts/dist/template-results';
import type { Context } from '../context';
import { parseDuration } from '../duration';
import { CliError, EXIT, usage } from '../errors';
import { parseVars, readData, readText } from '../files';
import type { ApiRequest, ApiResponse, Client } from '../http/client';
import { table } from '../output/format';
import type { Doc } from '../resources/documents';
import { field, isDoc, itemsOf, str } from '../resources/documents';
import { isoTime } from '../resources/registry';
import { limitOption } from '../limit';

/**
 * How long a device call may take: the platform allows a device operation 120 s (the catalog's
 * device timeout), so the CLI waits that long whatever shorter timeout its profile sets.
 */
const DEVICE_TIMEOUT_MS = 125_000;

/** One command's output as `sshSendCommandExec` answers it. */
interface CommandOutput {
  command: string;
  output: string;
  errorLines: string[];
  /** A `linux` device's exit status of the command (each runs in its own exec channel). */
  exitCode?: number;
}

function commandOutputs(value: unknown): CommandOutput[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isDoc).map((r) => ({
    command: str(r.command) ?? '',
    output: str(r.output) ?? '',
    errorLines: Array.isArray(r.errorLines) ? r.errorLines.map(String) : [],
    ...(typeof r.exitCode === 'number' ? { exitCode: r.exitCode } : {}),
  }));
}

/**
 * A transcript as an engineer reads one: the device's prompt and the command, then what it printed.
 * A Cisco-like device prints its errors in its output; a `linux` device's standard error comes
 * apart (`errorLines`), and is shown under the output, in red, so that a refusal says why.
 */
export function transcript(device: string, outputs: readonly CommandOutput[], c: Colors): string {
  return outputs
    .map((o) => {
      const own = o.output.replace(/\n*$/, '');
      const apart = o.errorLines.filter((line) => line !== '' && !own.includes(line)).map((line) => c.red(line));
      const body = (own === '' ? apart : [own, ...apart]).join('\n');
      return `${c.bold(`${device}# ${o.command}`)}\n${body}\n`;
    })
    .join('\n');
}

/** The platform's error code and message of a failed answer. */
function errorOf(res: ApiResponse): { code?: string; message: string; details?: Doc } {
  const body = isDoc(res.body) ? res.body : {};
  const details = isDoc(body.details) ? body.details : undefined;
  return {
    ...(str(body.code) === undefined ? {} : { code: str(body.code) }),
    message: str(body.message) ?? `status ${res.status}`,
    ...(details === undefined ? {} : { details }),
  };
}

/**
 * A device call the platform refused: when the device it names is no device of the inventory (a
 * typo, most often), the message says so first, since that is what to fix; else the refusal as it is.
 */
async function deviceFailure(client: Client, device: string, err: CliError): Promise<CliError> {
  if (err.exitCode !== EXIT.FAILED) return err;
  const res = await client.send({ method: 'POST', path: '/gw/getInventoryDevice', json: { name: device } }).catch(() => undefined);
  if (res?.status !== 404) return err;
  return new CliError(
    `"${device}" is no device of the inventory on ${client.url} (\`nap get devices\` lists them), and ${err.message}`,
    EXIT.FAILED,
    {
      cause: err,
    },
  );
}

/** A device call: its answer, or the platform's refusal as {@link deviceFailure} says it. */
async function deviceCall(client: Client, device: string, req: ApiRequest): Promise<ApiResponse> {
  try {
    return await client.request(req);
  } catch (err) {
    throw err instanceof CliError ? await deviceFailure(client, device, err) : err;
  }
}

/**
 * `nap devices command DEVICE COMMAND...`: the commands in one SSH session, as
 * `POST /gw/sshSendCommandExec` runs them (the first the device refuses stops the rest); prints each
 * output under the device's prompt and the command. Exit 1 when the device refused one, after the
 * outputs so far.
 */
export async function deviceCommand(ctx: Context, device: string, commands: string[], opts: { readTimeout?: string }): Promise<void> {
  if (commands.length === 0) throw usage('nap devices command: name at least one command to run');
  const body: Doc = { host: device, commands };
  if (opts.readTimeout !== undefined) body.read_timeout = parseDuration(opts.readTimeout, '--read-timeout') / 1000;
  const client = ctx.client();
  const res = await ctx.spin(`running ${commands.length} command${commands.length === 1 ? '' : 's'} on ${device}`, () =>
    client.send({ method: 'POST', path: '/gw/sshSendCommandExec', json: body, timeoutMs: DEVICE_TIMEOUT_MS }),
  );
  if (res.status < 400) {
    ctx.print(res.body, () => transcript(device, commandOutputs(field(res.body, 'result')), ctx.colors));
    return;
  }
  const error = errorOf(res);
  if (error.code !== 'DEVICE_COMMAND_FAILED')
    throw await deviceFailure(client, device, client.failure({ method: 'POST', path: '/gw/sshSendCommandExec' }, res));
  // what the device answered before and with the command it refused: the user reads why
  const results = commandOutputs(error.details?.results);
  ctx.print(res.body, () => transcript(device, results, ctx.colors));
  const refused = str(error.details?.command) ?? '?';
  const exitCode = results.find((r) => r.command === refused)?.exitCode;
  const status = exitCode === undefined ? '' : ` (exit status ${exitCode})`;
  const later = commands.length - commands.indexOf(refused) - 1;
  const notSent = later === 0 ? '' : later === 1 ? '; the command after it was not sent' : `; the ${later} commands after it were not sent`;
  throw new CliError(`${device} refused "${refused}"${status}${notSent}`, EXIT.FAILED);
}

/**
 * `nap devices configure DEVICE [LINE...] [-f FILE]`: configuration lines in configuration mode
 * (`POST /gw/sshSendConfigSet`). Prints the session; exit 1 when the device refused a line, each
 * refused line named on stderr. Nothing is retried or rolled back: the lines before went in.
 */
export async function configureDevice(
  ctx: Context,
  device: string,
  lines: string[],
  opts: { file?: string; errorPattern?: string },
): Promise<void> {
  const fromFile =
    opts.file === undefined
      ? []
      : (await readText(ctx, opts.file, '-f -')).split(/\r?\n/).filter((line) => line.trim() !== '' && !line.trimStart().startsWith('!'));
  const config = [...lines, ...fromFile];
  if (config.length === 0) throw usage('nap devices configure: give the configuration lines as arguments or with -f FILE');
  const body: Doc = { host: device, config_commands: config };
  if (opts.errorPattern !== undefined) body.error_pattern = opts.errorPattern;
  const client = ctx.client();
  const res = await ctx.spin(`configuring ${device} (${config.length} line${config.length === 1 ? '' : 's'})`, () =>
    deviceCall(client, device, { method: 'POST', path: '/gw/sshSendConfigSet', json: body, timeoutMs: DEVICE_TIMEOUT_MS }),
  );
  const errors = field(res.body, 'result.errors');
  const refused = Array.isArray(errors) ? errors.filter(isDoc) : [];
  ctx.print(res.body, () => String(field(res.body, 'result.output') ?? ''));
  if (field(res.body, 'status') === 'error' || refused.length > 0) {
    for (const e of refused) ctx.note(`${ctx.stderrColors.red('refused')} ${String(e.command)}: ${String(e.line)}`);
    throw new CliError(
      `${device} refused ${refused.length} of ${config.length} configuration line${config.length === 1 ? '' : 's'}; the others were sent`,
      EXIT.FAILED,
    );
  }
}

/** `nap devices get-config DEVICE`: a datastore read over NETCONF (`POST /gw/netconf/get_config/execute`), its XML printed. */
export async function getDeviceConfig(ctx: Context, device: string, opts: { source?: string; filter?: string }): Promise<void> {
  const body: Doc = { host: device };
  if (opts.source !== undefined) body.source = opts.source;
  if (opts.filter !== undefined)
    body.filter = opts.filter.startsWith('@') ? await readText(ctx, opts.filter.slice(1), '--filter @-') : opts.filter;
  const client = ctx.client();
  const res = await ctx.spin(`reading the ${opts.source ?? 'running'} configuration of ${device}`, () =>
    deviceCall(client, device, { method: 'POST', path: '/gw/netconf/get_config/execute', json: body, timeoutMs: DEVICE_TIMEOUT_MS }),
  );
  ctx.print(res.body, () => String(field(res.body, 'data') ?? ''));
}

/** The devices of an inventory group (`POST /gw/getInventoryDevices`, every page). */
async function groupDevices(client: Client, group: string): Promise<string[]> {
  const res = await client.request({ method: 'POST', path: '/gw/getInventoryDevices', json: { filter: { group }, limit: 0 } });
  const items = field(res.body, 'items');
  const names = Array.isArray(items) ? items.filter(isDoc).map((d) => String(d.name)) : [];
  if (names.length === 0) throw new CliError(`no device of the inventory is in group "${group}"`, EXIT.FAILED);
  return names;
}

/** The check, device by device: each command with ✔ or ✘, and under a failed one the rules it failed. */
export function checkReport(template: string, devices: readonly string[], answer: unknown, c: Colors): string {
  const outcome = templateOutcome(answer);
  const byDevice = new Map((outcome?.devices ?? []).map((d) => [d.device, d]));
  const passed = new Map(devices.map((d) => [d, byDevice.get(d)?.passed === true]));
  const lines: string[] = [];
  const width = Math.max(...devices.map((d) => d.length));
  for (const device of devices) {
    const ok = passed.get(device) === true;
    lines.push(`${c.bold(device.padEnd(width))}  ${ok ? c.green('passed') : c.red('FAILED')}`);
    for (const r of byDevice.get(device)?.commands ?? []) {
      if (r.skipped) {
        lines.push(`  ${c.yellow('–')} ${r.command} ${c.dim(`(${r.message ?? 'skipped'})`)}`);
        continue;
      }
      lines.push(`  ${r.result ? c.green('✔') : c.red('✘')} ${r.command}`);
      if (r.result) continue;
      if (r.message !== undefined) lines.push(`      ${c.red(r.message)}`);
      for (const rule of r.failedRules) {
        const how = rule.severity === 'error' ? rule.eval : `${rule.eval}, ${rule.severity}`;
        lines.push(`      ${c.red('✘')} ${rule.rule} ${c.dim(`(${how})`)}${rule.message === undefined ? '' : `: ${rule.message}`}`);
      }
    }
  }
  const runId = str(field(answer, 'runId'));
  const ran = field(answer, 'result') === true;
  const said = `${template} ${outcomeVerdict(
    ran,
    devices.map((device) => ({ device, passed: passed.get(device) === true })),
  )}`;
  const verdict = ran ? c.green(said) : c.red(said);
  lines.push(verdict);
  if (runId !== undefined) lines.push(c.dim(`the run is kept: nap api get /mop/runs/${runId}`));
  return `${lines.join('\n')}\n`;
}

/**
 * `nap devices check TEMPLATE [DEVICE...] [--group G]`: a MOP command template run against devices
 * (`POST /mop/RunCommandTemplate`), reported device by device. Exit 1 when the check fails, so that
 * a script or a pipeline stops before (or after) a change that does not hold.
 */
export async function checkDevices(
  ctx: Context,
  template: string,
  named: string[],
  opts: { group?: string; var?: string[]; vars?: string },
): Promise<void> {
  const client = ctx.client();
  const fromGroup = opts.group === undefined ? [] : await groupDevices(client, opts.group);
  const devices = [...new Set([...named, ...fromGroup])];
  if (devices.length === 0) throw usage(`nap devices check ${template}: name the devices, or a group with --group`);
  const fileVars = opts.vars === undefined ? {} : await readData(ctx, `@${opts.vars}`, '--vars', '--vars -');
  if (!isDoc(fileVars)) throw usage(`--vars ${opts.vars}: expected an object of variables`);
  const variables = { ...fileVars, ...parseVars(opts.var) };
  const res = await ctx.spin(`checking ${devices.length} device${devices.length === 1 ? '' : 's'} with ${template}`, () =>
    client.request({
      method: 'POST',
      path: '/mop/RunCommandTemplate',
      json: { template, devices, variables },
      timeoutMs: DEVICE_TIMEOUT_MS,
    }),
  );
  ctx.print(res.body, () => checkReport(template, devices, res.body, ctx.colors));
  if (field(res.body, 'result') === true) return;
  // the report ends with the verdict; a document on stdout does not, so it goes to stderr
  if (ctx.format !== 'human') ctx.note(`nap: the check ${template} did not pass`);
  process.exitCode = EXIT.FAILED;
}

/**
 * `nap devices checks DEVICE`: the latest command template runs that touched the device
 * (`GET /mop/runs`, newest first), from a job, the console or a script, each with whether this
 * device passed it under the template's passRule (not the whole run's verdict).
 */
export async function deviceChecks(ctx: Context, device: string, opts: { template?: string; limit?: string }): Promise<void> {
  const limit = limitOption(opts.limit, 10, 100);
  const res = await ctx.client().request({
    method: 'GET',
    path: '/mop/runs',
    query: { device, kind: 'command', limit, ...(opts.template ? { template: opts.template } : {}) },
  });
  const runs = itemsOf(res.body);
  const c = ctx.colors;
  const passedOn = (run: Doc): boolean | undefined => templateOutcome(run.output)?.devices.find((d) => d.device === device)?.passed;
  ctx.print(runs, () => {
    if (runs.length === 0) return `no command template has run on ${device}\n`;
    return table(
      runs,
      [
        { header: 'STARTED', value: (r: Doc) => isoTime(r.started) },
        { header: 'TEMPLATE', value: (r: Doc) => r.template },
        {
          header: 'RESULT',
          value: (r: Doc) => ((passedOn(r) ?? r.result === true) ? 'passed' : 'failed'),
          color: (t: string) => (t === 'passed' ? c.green(t) : c.red(t)),
        },
        { header: 'DEVICES', value: (r: Doc) => (Array.isArray(r.devices) ? r.devices.length : '-') },
        { header: 'BY', value: (r: Doc) => r.createdBy },
        { header: 'RUN', value: (r: Doc) => r._id },
      ],
      c,
      ctx.width,
    );
  });
}
