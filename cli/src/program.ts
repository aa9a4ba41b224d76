import { Command, Option } from 'commander';
import type { Context, GlobalOptions, Io } from './context';
import { EXIT_MEANINGS } from './errors';
import { OUTPUT_FORMATS } from './output/format';
import { terminalText } from './output/terminal';
import { RESOURCES } from './resources/registry';
import { VERSION } from './version';

/** Runs one command's work with the context built from the global options. */
export type Runner = (command: Command, work: (ctx: Context) => Promise<void>) => Promise<void>;

const collect = (value: string, previous: string[]): string[] => [...previous, value];

const RESOURCE_HELP = `the resource: ${RESOURCES.map((r) => r.plural).join(', ')} (singular or plural)`;

function gitOptions(cmd: Command, withMessage: boolean): Command {
  cmd
    .option('--repository <url|dir>', 'a Git repository (URL or local folder), cloned with the git on the PATH')
    .option('--reference <branch>', 'the branch of --repository (default: its default branch)');
  if (withMessage) cmd.option('--message <text>', 'the commit message (with --repository)');
  return cmd;
}

function secretOptions(cmd: Command): Command {
  return cmd
    .option(
      '--secret-from-env <member=VAR>',
      'a secret the export left out (see its omittedSecrets), set from an environment variable in every document: variables.gw_password=EDGE_PASSWORD; repeatable',
      collect,
      [],
    )
    .option(
      '--password-from-env <VAR>',
      'accounts: the password of the accounts created, from an environment variable (else one nobody knows)',
    );
}

function runOptions(cmd: Command): Command {
  return cmd
    .option('--var <name=value>', 'a job variable (value parsed as JSON when it can be); repeatable', collect, [])
    .option('--vars <file>', 'job variables from a JSON or YAML file (--var wins)')
    .option('--wait', 'wait quietly until the job ends; the exit code tells how it ended')
    .option(
      '--follow',
      "stream the job's task progress until it ends, through a restart of the platform (5 minutes without it at most); the exit code tells how it ended",
    )
    .option(
      '--timeout <duration>',
      'with --wait/--follow: give up after this long (30s, 5m, 1h) with exit code 3, the job going on (-o json prints it as it stands); implies --wait',
    );
}

/**
 * What to do about an unknown option that is a value beginning with `-` (a name, an id, a session
 * reference): put it after `--`, where nothing reads as an option.
 */
function unknownOptionHint(message: string): string {
  const option = /^error: unknown option '(-[^-'][^']+)'/.exec(message)?.[1];
  if (option === undefined) return '';
  return `(a name or id that begins with "-" goes after "--", as in: nap delete workflow -- ${option})\n`;
}

/** One exit code of `nap --help`: its meaning folded at 80 columns under its text. */
function exitCodeLines(code: number, meaning: string): string {
  const lines: string[] = [];
  let line = `  ${code}  `;
  for (const word of meaning.replace(/`/g, '').split(' ')) {
    if (line.length + word.length > 80 && line.trim().length > 1) {
      lines.push(line.trimEnd());
      line = '     ';
    }
    line += `${word} `;
  }
  lines.push(line.trimEnd());
  return `${lines.join('\n')}\n`;
}

/**
 * The command tree of `nap`. Every action loads its module only when it runs, so that `nap
 * --version` and `nap --help` stay light; docs/cli.md's reference is generated from this tree.
 */
export function buildProgram(io: Io, run: Runner): Command {
  const program = new Command('nap')
    .description('nap, the command line of NAP: manage assets as ipctl does, and run and follow jobs')
    .version(VERSION, '-V, --version', 'print the version of nap')
    .addOption(new Option('--profile <name>', 'the profile to use (default: NAP_PROFILE, NAP_URL, then the default profile)'))
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('human'))
    .option('--debug', 'print each request as the equivalent curl command (credentials masked), and stacks of errors')
    .option('--config <file>', "NAP's config file (default: $XDG_CONFIG_HOME/nap/config)")
    .option('--no-color', 'no colours (also NO_COLOR=1, or when the output is not a terminal)')
    .showHelpAfterError('(see nap --help)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      // commander's errors quote the words typed: shown as every line of nap is
      writeErr: (s) => io.stderr.write(terminalText(s, false)),
      outputError: (s, write) => write(`nap: ${s.replace(/^error: /, '')}${unknownOptionHint(s)}`),
    })
    .exitOverride();
  // a script's author finds what each exit code means beside the commands (`nap --help`)
  program.addHelpText('after', () => `\nExit codes:\n${EXIT_MEANINGS.map(([code, meaning]) => exitCodeLines(code, meaning)).join('')}`);

  program
    .command('get')
    .description('list the documents of a resource, or show one by name or id')
    .argument('<resource>', RESOURCE_HELP)
    .argument('[name]', 'name or id of one document')
    .option('--limit <n>', 'at most this many documents (a whole number from 1)')
    .action((resource: string, name: string | undefined, opts: { limit?: string }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/assets.js')).getCommand(ctx, resource, name, opts)),
    );

  program
    .command('describe')
    .description('show one document in full')
    .argument('<resource>', RESOURCE_HELP)
    .argument('<name>', 'name or id')
    .action((resource: string, name: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/assets.js')).describeCommand(ctx, resource, name)),
    );

  program
    .command('create')
    .description('create documents from a JSON or YAML file (one document or an array)')
    .argument('<resource>', RESOURCE_HELP)
    .requiredOption('-f, --file <file>', 'the document(s); - reads stdin')
    .action((resource: string, opts: { file?: string }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/assets.js')).createCommand(ctx, resource, opts)),
    );

  program
    .command('delete')
    .description('delete documents by name or id')
    .argument('<resource>', RESOURCE_HELP)
    .argument('<names...>', 'names or ids')
    .action((resource: string, names: string[], _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/assets.js')).deleteCommand(ctx, resource, names)),
    );

  for (const enabled of [false, true]) {
    const verb = enabled ? 'enable' : 'disable';
    program
      .command(verb)
      .description(
        enabled
          ? 'enable triggers or accounts by name or id; a schedule goes on at its first due time from now (the ones that came while it was disabled are skipped, not caught up), printed as its next run; an account may log in again'
          : 'disable triggers or accounts by name or id: a disabled trigger starts no job, and the due times of a schedule that come while it is disabled are skipped; a disabled account (inactive) cannot log in, and its sessions end at once',
      )
      .argument('<resource>', 'trigger or account (singular or plural): the resources that can be enabled and disabled')
      .argument('<names...>', 'names or ids; each is done even when another fails')
      .action((resource: string, names: string[], _opts: unknown, cmd: Command) =>
        run(cmd, async (ctx) => (await import('./commands/enable.js')).enableCommand(ctx, enabled, resource, names)),
      );
  }

  program
    .command('unlock')
    .description(
      'let accounts log in again at once after too many failed logins (429 LOGIN_THROTTLED): the failed logins counted for each username are forgotten; `nap get accounts` shows who is locked, and until when. Failures counted for a source address are not: they end on their own',
    )
    .argument('<accounts...>', 'usernames or account ids; each is done even when another fails')
    .action((names: string[], _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/enable.js')).unlockCommand(ctx, names)),
    );

  const sessions = program
    .command('sessions')
    .description("an account's live sessions (a token or a console sign-in each), and ending them: a lost laptop, a leaked token");
  sessions
    .command('list')
    .description(
      'list the live sessions of an account, newest first: how each began (login, oauth, sso), when, from where and with which client, and when it was last used',
    )
    .argument('<account>', 'username or account id')
    .action((account: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/sessions.js')).listSessions(ctx, account)),
    );
  sessions
    .command('end')
    .description(
      'end sessions of an account: those named, or every one; their tokens are refused from the next request on, and the person may log in again (to keep them out: nap disable account)',
    )
    .argument('<account>', 'username or account id')
    .argument('[sessions...]', 'the SESSION references of nap sessions list; none: every session of the account')
    .action((account: string, refs: string[], _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/sessions.js')).endSessions(ctx, account, refs)),
    );

  const roles = program
    .command('roles')
    .description(
      'what a role allows, and giving roles to groups (administrators); `nap get roles` lists the built-in and custom roles, `nap create role -f FILE` makes one',
    );
  roles
    .command('methods')
    .description(
      'list the methods a role allows, by application, each with its route; `nap get methods` lists every method a custom role can allow',
    )
    .argument('<role>', 'the role, by name or id')
    .action((role: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/roles.js')).roleMethods(ctx, role)),
    );
  for (const grant of [true, false]) {
    roles
      .command(grant ? 'grant' : 'revoke')
      .description(
        grant
          ? "give a role to groups: their members may call what it allows from their next request, beside what their other roles allow; a custom role is added to the group's assignedRoles, a built-in one to its roles"
          : 'take a role from groups: their members lose what only it allowed from their next request (a custom role a group is given cannot be deleted: revoke it first)',
      )
      .argument('<role>', 'the role, by name or id (custom or built-in)')
      .argument('<groups...>', 'group names or ids; each is done even when another fails')
      .action((role: string, groups: string[], _opts: unknown, cmd: Command) =>
        run(cmd, async (ctx) => (await import('./commands/roles.js')).grantRole(ctx, grant, role, groups)),
      );
  }

  const tags = program
    .command('tags')
    .description(
      'the tags of workflows, transformations, templates and forms, and tagging them; `nap get tags` lists the tags, `nap create tag -f FILE` makes one',
    );
  const TAGGED = 'workflow, transformation, template or form (singular or plural)';
  tags
    .command('list')
    .description('list the tags on a document')
    .argument('<resource>', TAGGED)
    .argument('<name>', 'the document, by name or id')
    .action((resource: string, name: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/tags.js')).listTags(ctx, resource, name)),
    );
  tags
    .command('add')
    .description('put tags on a document; every tag must exist (checked before any is put on), and one it already has stays as it is')
    .argument('<resource>', TAGGED)
    .argument('<name>', 'the document, by name or id')
    .argument('<tags...>', 'tag names or ids')
    .action((resource: string, name: string, names: string[], _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/tags.js')).addTags(ctx, resource, name, names)),
    );
  tags
    .command('remove')
    .description(
      'take tags off a document (the tags stay, on other documents too); no route takes one tag off, so the document is given, all at once, the tags it has without these',
    )
    .argument('<resource>', TAGGED)
    .argument('<name>', 'the document, by name or id')
    .argument('<tags...>', 'tag names or ids')
    .action((resource: string, name: string, names: string[], _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/tags.js')).removeTags(ctx, resource, name, names)),
    );

  const importCmd = gitOptions(
    program
      .command('import')
      .description(
        'import exported documents from a file or a folder (<name>.<kind>.json files), locally or from a Git repository, each on its own: one refused (or of a name that exists, without --replace) is said on stderr and costs no other; what the platform notes on an item it imported (a trigger it took in disabled) is printed on stderr as note: …',
      )
      .argument('<resource>', RESOURCE_HELP)
      .argument(
        '<path>',
        'a file or folder (- reads stdin: nap export … | nap import … -); with --repository, relative to the root of the repository',
      )
      .option(
        '--replace',
        'replace a document of the same name: updated in place where the platform can, else deleted and imported again, and put back if the platform refuses the new one (see "How --replace replaces")',
      ),
    false,
  );
  secretOptions(importCmd).action(
    (
      resource: string,
      target: string,
      opts: { replace?: boolean; repository?: string; reference?: string; secretFromEnv?: string[]; passwordFromEnv?: string },
      cmd: Command,
    ) => run(cmd, async (ctx) => (await import('./commands/assets.js')).importCommand(ctx, resource, target, opts)),
  );

  gitOptions(
    program
      .command('export')
      .description(
        'export a document as the platform exports it: to stdout when no --path is given and stdout is not a terminal, else to <path>/<name>.<kind>.json, or committed and pushed to a Git repository',
      )
      .argument('<resource>', RESOURCE_HELP)
      .argument('<name>', 'name or id')
      .option('--path <dir>', 'the folder to write to (with --repository: inside the repository)'),
    true,
  ).action(
    (resource: string, name: string, opts: { path?: string; repository?: string; reference?: string; message?: string }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/assets.js')).exportCommand(ctx, resource, name, opts)),
  );

  secretOptions(
    program
      .command('copy')
      .description('copy a document from one platform to another: exported from --from, imported into --to')
      .argument('<resource>', RESOURCE_HELP)
      .argument('<name>', 'name or id on the source')
      .option('--from <profile>', 'the source profile (default: the active profile)')
      .option('--to <profile>', 'the target profile (default: the active profile)')
      .option('--replace', 'replace a document of the same name on the target (as import --replace does)'),
  ).action(
    (
      resource: string,
      name: string,
      opts: { from?: string; to?: string; replace?: boolean; secretFromEnv?: string[]; passwordFromEnv?: string },
      cmd: Command,
    ) => run(cmd, async (ctx) => (await import('./commands/assets.js')).copyCommand(ctx, resource, name, opts)),
  );

  program
    .command('api')
    .description('call any route of the HTTP interface and print its answer')
    .argument('<method>', 'get, post, put, patch or delete')
    .argument('<path>', 'the route, for example /health/server or /operations-manager/jobs?limit=5')
    .option('-d, --data <json|@file>', 'the JSON body, inline or @file (JSON or YAML)')
    .option('-q, --query <key=value>', 'a query member; repeatable', collect, [])
    .action((method: string, route: string, opts: { data?: string; query?: string[] }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/platform.js')).apiCommand(ctx, method, route, opts)),
    );

  program
    .command('inspect')
    .description('show the state of the platform: server (version, health) or applications')
    .argument('<what>', 'server or applications')
    .action((what: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/platform.js')).inspectCommand(ctx, what)),
    );

  for (const action of ['start', 'stop', 'restart'] as const) {
    program
      .command(action)
      .description(`${action} an application (every replica of its service) or an adapter`)
      .argument('<kind>', 'application or adapter')
      .argument('<name>', 'its name, for example WorkFlowEngine')
      .action((kind: string, name: string, _opts: unknown, cmd: Command) =>
        run(cmd, async (ctx) => (await import('./commands/platform.js')).lifecycleCommand(ctx, action, kind, name)),
      );
  }

  const runCmd = program.command('run').description('start a job: of a workflow, or of an automation through its trigger');
  runOptions(
    runCmd
      .command('workflow')
      .description('start a job of a workflow')
      .argument('<name>', 'the workflow, by name or id')
      .option('--description <text>', 'the description of the job'),
  ).action((name: string, opts: Record<string, unknown>, cmd: Command) =>
    run(cmd, async (ctx) => (await import('./commands/jobs.js')).runWorkflow(ctx, name, opts)),
  );
  runOptions(
    runCmd
      .command('automation')
      .description('start a job of an automation through its manual trigger (or else its endpoint trigger)')
      .argument('<name>', 'the automation, by name or id')
      .option('--form-data <json|@file>', 'the form data (manual trigger) or body (endpoint trigger); --var members are added')
      .option('--trigger <name>', 'which trigger, when the automation has several'),
  ).action((name: string, opts: Record<string, unknown>, cmd: Command) =>
    run(cmd, async (ctx) => (await import('./commands/jobs.js')).runAutomation(ctx, name, opts)),
  );

  const jobs = program.command('jobs').description('list, follow and operate jobs');
  jobs
    .command('list')
    .description('list jobs, newest first')
    .option('--status <status>', 'only jobs in these states (comma-separated: running, paused, complete, error, canceled)')
    .option('--workflow <name>', 'only jobs of this workflow')
    .option('--trigger <name|id>', 'only jobs this trigger started')
    .option('--since <time>', 'only jobs started from this time on: a duration ago (30m, 1h, 2d) or ISO 8601 (2026-12-01T09:00:00Z)')
    .option('--limit <n>', 'at most this many jobs (default 25)')
    .action((opts: Record<string, string | undefined>, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).listJobs(ctx, opts)),
    );
  jobs
    .command('describe')
    .description('show the task tree of a job with statuses and errors, child jobs indented')
    .argument('<id>', 'the job id')
    .action((id: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).describeJob(ctx, id)),
    );
  jobs
    .command('watch')
    .description(
      'follow a job until it ends, through a restart of the platform (5 minutes without it at most); the exit code tells how it ended',
    )
    .argument('<id>', 'the job id')
    .option('--timeout <duration>', 'give up after this long with exit code 3, the job going on (-o json prints it as it stands)')
    .option('--quiet', 'no progress, only the final status')
    .action((id: string, opts: { timeout?: string; quiet?: boolean }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).watchJob(ctx, id, opts)),
    );
  jobs
    .command('cancel')
    .description('cancel jobs')
    .argument('<ids...>', 'job ids')
    .action((ids: string[], _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).cancelJobs(ctx, ids)),
    );
  for (const action of ['pause', 'resume'] as const) {
    jobs
      .command(action)
      .description(`${action} jobs`)
      .argument('<ids...>', 'job ids')
      .action((ids: string[], _opts: unknown, cmd: Command) =>
        run(cmd, async (ctx) => (await import('./commands/jobs.js')).pauseOrResume(ctx, action, ids)),
      );
  }
  jobs
    .command('retry')
    .description('run a task of a job in error again, with replaced incoming variables')
    .argument('<id>', 'the job id')
    .argument('<task>', 'the task id (or its summary)')
    .option('--var <name=value>', 'a replacement incoming variable; repeatable', collect, [])
    .action((id: string, task: string, opts: { var?: string[] }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).retryTask(ctx, id, task, opts)),
    );
  jobs
    .command('archive')
    .description(
      'move the finished root jobs (with their child jobs) that ended before a moment out of the live job store into an archive, a file of one job a line that the platform fills in the background (administrators)',
    )
    .requiredOption(
      '--before <date|duration>',
      'jobs that ended before this: an ISO 8601 date or time (2026-09-01, 2026-09-01T00:00:00Z) or a duration ago (90d, 12h)',
    )
    .option('--status <statuses>', 'only root jobs in these states (comma-separated: complete, error, canceled; default all three)')
    .option('--wait', 'wait until the archive is complete, then print it with its jobs and size')
    .option('--timeout <duration>', 'with --wait: give up after this long (30s, 5m) with exit code 3; implies --wait')
    .action((opts: { before?: string; status?: string; wait?: boolean; timeout?: string }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).archiveJobs(ctx, opts)),
    );
  jobs
    .command('archives')
    .description("list the job archives, newest first: made by nap jobs archive or by the platform's job retention (administrators)")
    .option('--state <state>', 'only archives in this state: running, complete or deleted')
    .option('--limit <n>', 'at most this many archives (default 25)')
    .action((opts: { state?: string; limit?: string }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).listArchives(ctx, opts)),
    );
  jobs
    .command('archive-download')
    .description(
      "save a complete archive's file as the platform sends it: gzip of one job a line (JSON), as GET /operations-manager/jobs/:id shows it",
    )
    .argument('<id>', 'the archive id (nap jobs archives lists them)')
    .option('-f, --file <file>', 'where to save it (default: <id>.ndjson.gz in the current folder); - writes to stdout')
    .option('--force', 'overwrite the file if it exists')
    .action((id: string, opts: { file?: string; force?: boolean }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).downloadArchive(ctx, id, opts)),
    );
  jobs
    .command('archive-delete')
    .description(
      "delete an archive's file on the platform, for good (download it first); the archive stays listed as deleted, by whom and when. Asks to confirm on a terminal",
    )
    .argument('<id>', 'the archive id')
    .option('--yes', 'do not ask (needed when stdin is not a terminal)')
    .action((id: string, opts: { yes?: boolean }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).deleteArchive(ctx, id, opts)),
    );

  const tasks = program.command('tasks').description('manual tasks waiting for a person');
  tasks
    .command('list')
    .description('list the manual tasks waiting for a person (--all: tasks of every kind and state)')
    .option(
      '--status <status>',
      'tasks in this state: incomplete, pending, running, complete, error or canceled (default: running, i.e. waiting)',
    )
    .option('--job <id>', 'only tasks of this job')
    .option('--workflow <name>', 'only tasks of jobs of this workflow')
    .option('--all', 'every task, not only waiting manual ones')
    .option('--limit <n>', 'at most this many tasks (default 50)')
    .action((opts: Record<string, string | boolean | undefined>, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).listTasks(ctx, opts)),
    );
  tasks
    .command('finish')
    .description('finish a manual task with the variables a person chose')
    .argument('<job>', 'the job id')
    .argument('<task>', 'the task id (or its summary)')
    .option('--var <name=value>', 'an outgoing variable of the task; repeatable', collect, [])
    .option('--failure', 'finish it with the failure state (the "no" branch)')
    .action((job: string, task: string, opts: { var?: string[]; failure?: boolean }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/jobs.js')).finishTask(ctx, job, task, opts)),
    );

  const devices = program
    .command('devices')
    .description('run commands on inventory devices, configure them, read their configuration, and check them with MOP templates');
  devices
    .command('command')
    .description(
      "run commands on a device in one SSH session and print each output under the device's prompt; the first command the device refuses stops the rest (exit 1)",
    )
    .argument('<device>', 'the inventory device (or an address the platform can reach)')
    .argument('<commands...>', 'the commands, each one argument: "show version" "show ip interface brief"')
    .option('--read-timeout <duration>', "how long to wait for each command's output (default 10s)")
    .action((device: string, commands: string[], opts: { readTimeout?: string }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/devices.js')).deviceCommand(ctx, device, commands, opts)),
    );
  devices
    .command('configure')
    .description(
      'send configuration lines to a device in configuration mode and print the session; exit 1 when it refused a line (the others were sent)',
    )
    .argument('<device>', 'the inventory device')
    .argument('[lines...]', 'the configuration lines, each one argument: "interface Gi0/1" "description uplink"')
    .option('-f, --file <file>', "the lines from a file (- for stdin); blank lines and '!' comments are left out")
    .option('--error-pattern <regex>', 'stop at the first output that matches (for example "% Invalid") and exit 1')
    .action((device: string, lines: string[], opts: { file?: string; errorPattern?: string }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/devices.js')).configureDevice(ctx, device, lines, opts)),
    );
  devices
    .command('get-config')
    .description(
      "print a device's configuration read over NETCONF (get-config); over SSH alone: nap devices command DEVICE 'show running-config'",
    )
    .argument('<device>', 'the inventory device')
    .option('--source <datastore>', 'running (default), candidate or startup')
    .option('--filter <xml|xpath|@file>', 'only this part: a subtree filter (XML) or an XPath expression')
    .action((device: string, opts: { source?: string; filter?: string }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/devices.js')).getDeviceConfig(ctx, device, opts)),
    );
  devices
    .command('check')
    .description(
      'run a MOP command template against devices and report each device and command, with the rules a failed one did not pass; exit 1 when the check fails',
    )
    .argument('<template>', 'the command template, by name')
    .argument('[devices...]', 'the devices to check')
    .option('--group <name>', 'check every device of this inventory group too')
    .option(
      '--var <name=value>',
      'a variable of the template (<!name!>); a JSON list runs the command once per element; repeatable',
      collect,
      [],
    )
    .option('--vars <file>', 'the variables from a JSON or YAML file (--var wins)')
    .action((template: string, named: string[], opts: { group?: string; var?: string[]; vars?: string }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/devices.js')).checkDevices(ctx, template, named, opts)),
    );

  devices
    .command('checks')
    .description(
      'list the latest command template runs on a device (from jobs, the console or scripts), newest first, each with whether this device passed it',
    )
    .argument('<device>', 'the inventory device')
    .option('--template <name>', 'only runs of this command template')
    .option('--limit <n>', 'at most this many runs (default 10, at most 100)')
    .action((device: string, opts: { template?: string; limit?: string }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/devices.js')).deviceChecks(ctx, device, opts)),
    );

  const audit = program.command('audit').description('read, verify and export the audit trail (roles admin or auditor)');
  const rangeOptions = (cmd: Command): Command =>
    cmd
      .option('--since <time>', 'records from this time on: ISO 8601 (2026-12-01T00:00:00Z) or a duration ago (30m, 1h, 2d)')
      .option('--until <time>', 'records before this time: ISO 8601 or a duration ago');
  rangeOptions(
    audit
      .command('list')
      .description('list audit records, newest first: who did what to what, and how it ended')
      .option('--actor <username>', 'only what this account (or platform actor) did')
      .option('--operation <id>', 'only this operation (admin.updateAccount, workflow.startJob, …)')
      .option('--target <id>', 'only what acted on this id (an account, a job, a workflow, …)')
      .option('--target-name <name>', 'only what acted on a thing of this name (a workflow, an account, …), whatever its id')
      .option('--kind <kind>', 'only what acted on this kind of thing (workflow, job, account, group, command-template, …)')
      .option('--outcome <outcome>', 'success, failure, a status (403) or an error code (FORBIDDEN)')
      .option('--limit <n>', 'at most this many records (default 25, at most 500)'),
  ).action((opts: Record<string, string | undefined>, cmd: Command) =>
    run(cmd, async (ctx) => (await import('./commands/audit.js')).listAudit(ctx, opts)),
  );
  audit
    .command('describe')
    .description(
      'show one record: who, what, to what, how it ended, from where, and every member it changed with its values before and after',
    )
    .argument('<seq>', 'the record (its SEQ in nap audit list)')
    .action((seq: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/audit.js')).describeAudit(ctx, seq)),
    );
  audit
    .command('verify')
    .description('recompute the hash chain of every kept record; exit 1 when it does not hold')
    .action((_opts: unknown, cmd: Command) => run(cmd, async (ctx) => (await import('./commands/audit.js')).verifyAudit(ctx)));
  rangeOptions(
    audit
      .command('export')
      .description('write the audit records, oldest first, one JSON record a line (NDJSON), as the platform streams them')
      .option('-f, --file <file>', 'write to this file (default: stdout)')
      .option('--after-seq <seq>', 'only records after this seq: resumes an export that was cut'),
  ).action((opts: Record<string, string | undefined>, cmd: Command) =>
    run(cmd, async (ctx) => (await import('./commands/audit.js')).exportAudit(ctx, opts)),
  );

  program
    .command('password')
    .description(
      "change the password of the account the profile logs in as: asked on the terminal with nothing echoed, or read with --password-stdin; this session goes on, the account's other sessions end, and a password the profile keeps in NAP's config file is updated",
    )
    .option(
      '--password-stdin',
      'read the passwords from stdin instead of asking: the current one on a line, then the new one (a third line, when given, must repeat it): printf \'%s\\n%s\\n\' "$OLD" "$NEW" | nap password --password-stdin',
    )
    .action((opts: { passwordStdin?: boolean }, cmd: Command) =>
      run(cmd, async (ctx) => (await import('./commands/password.js')).passwordCommand(ctx, opts)),
    );

  program
    .command('completion')
    .description('print the shell completion script: eval "$(nap completion bash)"')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => ctx.out((await import('./completion.js')).completionScript(shell, program))),
    );

  // a usage error points at the help of the command typed (`nap jobs retry --help`), not the top's
  const pointToHelp = (cmd: Command, words: readonly string[]): void => {
    cmd.showHelpAfterError(`(see ${words.join(' ')} --help)`);
    for (const sub of cmd.commands) pointToHelp(sub, [...words, sub.name()]);
  };
  for (const sub of program.commands) pointToHelp(sub, ['nap', sub.name()]);
  return program;
}

export type { GlobalOptions };
export { VERSION };
