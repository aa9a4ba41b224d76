import { writeProfileKey } from '../config/profile-file';
import type { Profile, SecretSource } from '../config/profiles';
import type { Context } from '../context';
import { CliError, EXIT, usage } from '../errors';
import type { ApiRequest, ApiResponse, Client } from '../http/client';
import { platformMessage, throttledLogin } from '../http/client';
import { isDoc } from '../resources/documents';
import type { SecretPrompt } from '../secret-prompt';
import { createSecretPrompt, PromptInterrupted } from '../secret-prompt';

/** The body of `PUT /whoami/password`. */
export interface PasswordChange {
  currentPassword: string;
  newPassword: string;
}

const UNCHANGED = 'the password is unchanged';

/**
 * The change, checked before anything is sent: neither password empty, the repetition (when there
 * is one) the same as the new password, and the new one not the current one.
 */
export function checkedChange(currentPassword: string, newPassword: string, repeated?: string): PasswordChange {
  if (currentPassword === '') throw usage(`the current password is empty; ${UNCHANGED}`);
  if (newPassword === '') throw usage(`the new password is empty; ${UNCHANGED}`);
  if (repeated !== undefined && repeated !== newPassword) throw usage(`the new password and its repetition differ; ${UNCHANGED}`);
  if (newPassword === currentPassword) throw usage(`the new password is the same as the current one; ${UNCHANGED}`);
  return { currentPassword, newPassword };
}

/**
 * `--password-stdin`: the current password on the first line, the new one on the second and,
 * optionally, the new one again on a third (what the prompts would ask). Line ends (`\n` or
 * `\r\n`) are not part of a password; trailing empty lines are ignored.
 */
export function passwordsFromText(text: string): PasswordChange {
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length < 2 || lines.length > 3) {
    throw usage(
      `--password-stdin reads the current password on a line, then the new one (and, optionally, the new one again); stdin held ${lines.length} line${lines.length === 1 ? '' : 's'}`,
    );
  }
  const [current, next, repeated] = lines as [string, string, string | undefined];
  return checkedChange(current, next, repeated);
}

/** The three questions of the terminal, asked with nothing echoed; an empty answer ends it early. */
export async function askPasswords(prompt: Pick<SecretPrompt, 'ask'>): Promise<PasswordChange> {
  const current = await prompt.ask('Current password: ');
  if (current === '') throw usage(`the current password is empty; ${UNCHANGED}`);
  const next = await prompt.ask('New password: ');
  if (next === '') throw usage(`the new password is empty; ${UNCHANGED}`);
  const repeated = await prompt.ask('Retype the new password: ');
  return checkedChange(current, next, repeated);
}

/** The account the profile logs in as, for messages; undefined for a profile's own token. */
function accountOf(profile: Profile): string | undefined {
  return profile.token !== undefined ? undefined : (profile.clientId ?? profile.username);
}

async function passwordsFromTerminal(ctx: Context, profile: Profile): Promise<PasswordChange> {
  const stdin = ctx.io.stdin ?? process.stdin;
  const account = accountOf(profile);
  ctx.note(
    `Changing the password of ${account === undefined ? 'the account' : `"${account}"`} on ${profile.baseUrl} (profile "${profile.name}")`,
  );
  const prompt = createSecretPrompt(stdin, ctx.io.stderr);
  try {
    return await askPasswords(prompt);
  } catch (err) {
    if (!(err instanceof PromptInterrupted)) throw err;
    prompt.close();
    // raw mode kept the terminal from sending SIGINT for Ctrl-C: nap sends it itself, and ends as any interrupted command
    process.kill(process.pid, 'SIGINT');
    throw new CliError(`interrupted; ${UNCHANGED}`, EXIT.FAILED, { cause: err });
  } finally {
    prompt.close();
  }
}

/** What the rules found wrong with the new password: the message of the `body.newPassword` detail, without the member's name. */
function newPasswordProblem(body: unknown): string | undefined {
  if (!isDoc(body) || !Array.isArray(body.details)) return undefined;
  const detail = body.details.find((d: unknown) => isDoc(d) && d.member === 'body.newPassword') as { message?: unknown } | undefined;
  return typeof detail?.message === 'string' ? detail.message.replace(/^body\.newPassword\s+/, '') : undefined;
}

/**
 * The error a refused change means, by the platform's code: a wrong current password and a
 * throttled account exit 5 (credentials refused), broken password rules and an account of an
 * external sign-in method exit 1 (the platform refused the request); anything else as every command.
 */
export function changeFailure(client: Client, req: Pick<ApiRequest, 'method' | 'path'>, res: ApiResponse, account?: string): CliError {
  const { code, message } = platformMessage(res.body);
  const label = code === undefined ? `${res.status}` : `${res.status} ${code}`;
  const of = account === undefined ? '' : ` of "${account}"`;
  if (code === 'CURRENT_PASSWORD_WRONG') {
    return new CliError(
      `the current password${of} is wrong; ${UNCHANGED} (${label}; a wrong current password counts as a failed login, and after a few in a row logins wait)`,
      EXIT.AUTH,
    );
  }
  const throttled = throttledLogin(res, account === undefined ? undefined : `"${account}"`);
  if (throttled !== undefined) return new CliError(`${throttled}; ${UNCHANGED} (${label})`, EXIT.AUTH);
  const problem = res.status === 400 ? newPasswordProblem(res.body) : undefined;
  if (problem !== undefined) {
    return new CliError(`the new password breaks the platform's password rules: it ${problem}; ${UNCHANGED} (${label})`, EXIT.FAILED);
  }
  if (res.status === 422) return new CliError(`${message}; ${UNCHANGED} (${label})`, EXIT.FAILED);
  return client.failure(req, res);
}

/** Where the old secret is still kept, as a note saying what to change; undefined when nap updated it. */
function updateProfile(ctx: Context, profile: Profile, source: SecretSource, newPassword: string): string | undefined {
  if (source.kind === 'env') return `${source.variable} still holds the old password: set it to the new one`;
  const where = `the old password is still in ${source.file}, key ${source.key} of [profile ${source.profile}]`;
  if (source.file !== ctx.config().files.nap) return `${where}: change it there (nap does not write ipctl's file)`;
  if (source.profile !== profile.name) {
    return `${where}, which profile "${profile.name}" inherits and other profiles may share: change it there`;
  }
  const write = writeProfileKey(source.file, source.profile, source.key, newPassword);
  if (!write.written) return `${where}: nap could not rewrite it, change it there`;
  const octal = (mode: number): string => mode.toString(8).padStart(4, '0');
  const narrowed =
    write.readableBy === undefined
      ? ''
      : `, which others could read (mode ${octal(write.readableBy.mode)}): it is now ${octal(write.readableBy.now)}, only yours`;
  ctx.note(`updated the ${source.key} of profile "${profile.name}" in ${source.file}${narrowed}`);
  return undefined;
}

/**
 * `nap password`: changes the password of the account the profile logs in as, given the current
 * one. The passwords are asked on the terminal with nothing echoed, or read from stdin with
 * `--password-stdin`; never from arguments. This session goes on (its token is kept for the new
 * password); the platform ends every other session of the account. The profile's own stored
 * password is updated in NAP's config file; anywhere else, a note says what to change.
 */
export async function passwordCommand(ctx: Context, opts: { passwordStdin?: boolean }): Promise<void> {
  const profile = ctx.profile();
  if (profile.token === undefined && profile.clientId === undefined && profile.username === undefined) {
    throw usage(`profile "${profile.name}" has no credentials: set username and password, client_id and client_secret, or NAP_TOKEN`);
  }
  let change: PasswordChange;
  if (opts.passwordStdin === true) {
    if (ctx.stdinIsTerminal()) throw usage('--password-stdin reads a pipe or a file, not a terminal: leave it out to be asked');
    change = passwordsFromText(await ctx.readStdin('--password-stdin'));
  } else {
    if (!ctx.stdinIsTerminal()) {
      throw usage(
        'stdin is not a terminal, so nap cannot ask for the passwords: give them with --password-stdin (the current password on a line, then the new one)',
      );
    }
    change = await passwordsFromTerminal(ctx, profile);
  }

  const client = ctx.client();
  const req = { method: 'PUT', path: '/whoami/password', json: change } as const;
  const res = await client.send(req);
  if (res.status >= 400) throw changeFailure(client, req, res, accountOf(profile));
  client.keepSession(change.newPassword);
  const message = isDoc(res.body) && typeof res.body.message === 'string' ? res.body.message : 'Password changed';
  ctx.print(res.body, () => `${message}\n`);
  const stale = profile.secretSource === undefined ? undefined : updateProfile(ctx, profile, profile.secretSource, change.newPassword);
  if (stale !== undefined) ctx.note(`note: ${stale}`);
}
