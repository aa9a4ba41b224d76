import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type * as Ldapts from 'ldapts';
import type { Client, Entry } from 'ldapts';
import { AppError } from '@nap/contracts';
import type { LdapProviderConfig } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { onFirstUse } from '@nap/util';
import { firstRdnValue, groupFilter, userFilter } from '../domain/ldap-filter';
import { ldapUrls, providerUnavailable, recheckMinutesOf, serverTimeoutMs } from '../domain/sign-in';
import type { ExternalIdentity, PasswordMethod, PasswordOutcome } from '../domain/sign-in';

// the LDAP client loads with the first directory sign-in (onFirstUse), not at every start
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const ldapts = onFirstUse(() => require('ldapts') as typeof Ldapts);

/** Attributes read from a user entry. */
const USER_ATTRIBUTES = ['memberOf', 'givenName', 'sn', 'mail'];

/** What one server said of a person: their entry, or that it has none. */
type Found = { entry: Entry; groups: string[] } | null;

/** A failure to reach or use one server; the next server is tried. */
class ServerFailure extends Error {
  override readonly name = 'ServerFailure';
}

/**
 * An LDAP v3 directory (OpenLDAP, Active Directory) as a password method, through `ldapts`. For a
 * sign-in: a connection to the first server that answers (`ldaps://`, or StartTLS), a bind as the
 * service account (or none: an anonymous search), a search for the person's entry, a bind as that
 * entry with their password, then their groups: from `memberOf`, or by a group search under
 * `groupBase` as the service account (with the in-chain rule for Active Directory's nested
 * groups). Certificates are always verified, against `caFile` when given. Each server has
 * `timeoutMs` for the whole exchange; a connection is opened per sign-in and closed after it.
 */
export class LdapDirectory implements PasswordMethod {
  readonly kind = 'password';
  readonly type = 'ldap';
  readonly recheckMinutes: number;
  private readonly urls: string[];
  private readonly timeoutMs: number;
  private readonly tls: ConnectionOptions;
  /** Why the configuration cannot be used (its CA file unreadable): every sign-in is 503 with it. */
  private readonly caProblem: string | undefined;

  constructor(
    readonly name: string,
    private readonly config: LdapProviderConfig,
    readonly adminGroups: readonly string[],
    private readonly log: Logger,
  ) {
    this.urls = ldapUrls(config);
    this.timeoutMs = serverTimeoutMs(config);
    this.recheckMinutes = recheckMinutesOf(config);
    // read once per configuration: a CA file that cannot be read makes every sign-in 503, named
    let ca: string | undefined;
    if (config.caFile !== undefined) {
      try {
        ca = readFileSync(config.caFile, 'utf8');
      } catch (err) {
        this.caProblem = `its CA file ${config.caFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
      }
    }
    this.tls = { rejectUnauthorized: true, minVersion: 'TLSv1.2', ...(ca !== undefined ? { ca } : {}) };
  }

  async authenticate(username: string, password: string): Promise<PasswordOutcome> {
    // an LDAP bind with an empty password is an anonymous bind, which succeeds: never send one
    if (password === '') return { outcome: 'rejected', reason: 'empty password' };
    let rejected: string | undefined;
    const found = await this.onAnyServer(async (client) => {
      const entry = await this.findUser(client, username);
      if (entry === null) return null;
      try {
        await client.bind(entry.dn, password);
      } catch (err) {
        if (err instanceof ldapts().InvalidCredentialsError) {
          rejected = 'wrong password';
          return null;
        }
        throw err;
      }
      return { entry, groups: await this.groupsOf(client, entry, username, true) };
    });
    if (rejected !== undefined) return { outcome: 'rejected', reason: rejected };
    if (found === null) return { outcome: 'unknown' };
    return { outcome: 'accepted', identity: this.identityOf(username, found) };
  }

  async recheck(account: { username: string }): Promise<ExternalIdentity | null> {
    const found = await this.onAnyServer(async (client) => {
      const entry = await this.findUser(client, account.username);
      return entry === null ? null : { entry, groups: await this.groupsOf(client, entry, account.username, false) };
    });
    return found === null ? null : this.identityOf(account.username, found);
  }

  async close(): Promise<void> {
    // a connection lives for one sign-in: nothing stays open
  }

  /** Runs `work` against each server in turn until one answers within the timeout; 503 naming the last failure when none does. */
  private async onAnyServer(work: (client: Client) => Promise<Found>): Promise<Found> {
    if (this.caProblem !== undefined) throw providerUnavailable(this.name, this.caProblem);
    let last = 'no server is configured';
    for (const url of this.urls) {
      const client = new (ldapts().Client)({
        url,
        timeout: this.timeoutMs,
        connectTimeout: this.timeoutMs,
        strictDN: false,
        // ldapts takes tlsOptions as "TLS from the start": only for ldaps://; StartTLS gets them below
        ...(url.startsWith('ldaps://') ? { tlsOptions: this.tlsFor(url) } : {}),
      });
      let timer: NodeJS.Timeout | undefined;
      try {
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new ServerFailure(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
        });
        return await Promise.race([this.session(client, url, work), deadline]);
      } catch (err) {
        if (err instanceof AppError) throw err;
        last = `${url}: ${describe(err)}`;
        this.log.warn({ provider: this.name, url, err: describe(err) }, 'LDAP server failed; trying the next one');
      } finally {
        clearTimeout(timer);
        // unbind closes the socket; a server that stopped answering must not hold the sign-in
        client.unbind().catch(() => undefined);
      }
    }
    throw providerUnavailable(this.name, last);
  }

  /** One exchange with one server: StartTLS when asked, the service bind, then `work`. */
  private async session(client: Client, url: string, work: (client: Client) => Promise<Found>): Promise<Found> {
    if (this.config.startTls) await client.startTLS(this.tlsFor(url));
    await this.serviceBind(client);
    return work(client);
  }

  /** TLS options for a server: the CA, verification on, and the name to check (SNI only for a name, never an address). */
  private tlsFor(url: string): ConnectionOptions {
    const host = hostOf(url);
    // host also for StartTLS, where ldapts hands tls.connect only these options: the certificate is checked against it
    return isIP(host) === 0 ? { ...this.tls, host, servername: host } : { ...this.tls, host };
  }

  private async serviceBind(client: Client): Promise<void> {
    if (this.config.bindDN === undefined || this.config.bindPassword === undefined) return;
    try {
      await client.bind(this.config.bindDN, this.config.bindPassword);
    } catch (err) {
      if (err instanceof ldapts().InvalidCredentialsError)
        throw providerUnavailable(this.name, `the directory refused the service account ${this.config.bindDN} (bindDN, bindPassword)`, err);
      throw err;
    }
  }

  /** The one entry the user filter finds for `username`; null when none; several: refused as unknown, logged. */
  private async findUser(client: Client, username: string): Promise<Entry | null> {
    let searchEntries: Entry[];
    try {
      ({ searchEntries } = await client.search(this.config.userBase, {
        scope: 'sub',
        filter: userFilter(this.config.userFilter, username),
        attributes: USER_ATTRIBUTES,
        sizeLimit: 2,
      }));
    } catch (err) {
      if (err instanceof ldapts().NoSuchObjectError) throw noSuchBase('userBase', this.config.userBase, err);
      if (!(err instanceof ldapts().SizeLimitExceededError)) throw err;
      this.log.warn({ provider: this.name, username }, 'The user filter finds more than two entries; refusing the sign-in');
      return null;
    }
    if (searchEntries.length > 1) {
      this.log.warn(
        { provider: this.name, username, entries: searchEntries.length },
        'The user filter finds several entries; refusing the sign-in',
      );
      return null;
    }
    return searchEntries[0] ?? null;
  }

  /**
   * The names of the groups of `entry`: by a group search under `groupBase` when there is one (as
   * the service account: the person's own bind may not read groups), from `memberOf` otherwise.
   */
  private async groupsOf(client: Client, entry: Entry, username: string, boundAsUser: boolean): Promise<string[]> {
    if (this.config.groupBase === undefined) return valuesOf(entry.memberOf).flatMap((dn) => firstRdnValue(dn) ?? []);
    if (boundAsUser) await this.serviceBind(client);
    const nameAttribute = this.config.groupNameAttribute ?? 'cn';
    const groupBase = this.config.groupBase;
    const { searchEntries } = await client
      .search(groupBase, {
        scope: 'sub',
        filter: groupFilter({ template: this.config.groupFilter, nested: this.config.nestedGroups }, entry.dn, username),
        attributes: [nameAttribute],
      })
      .catch((err: unknown) => {
        throw err instanceof ldapts().NoSuchObjectError ? noSuchBase('groupBase', groupBase, err) : err;
      });
    return searchEntries.flatMap((group) => valuesOf(group[nameAttribute]).slice(0, 1));
  }

  private identityOf(username: string, found: { entry: Entry; groups: string[] }): ExternalIdentity {
    const { entry } = found;
    const firstname = valuesOf(entry.givenName)[0];
    const lastname = valuesOf(entry.sn)[0];
    const email = valuesOf(entry.mail)[0];
    return {
      username,
      externalId: entry.dn,
      ...(firstname !== undefined ? { firstname } : {}),
      ...(lastname !== undefined ? { lastname } : {}),
      ...(email !== undefined ? { email } : {}),
      groups: [...new Set(found.groups)],
    };
  }
}

/** An attribute's values as strings (ldapts answers a string, a Buffer, or arrays of them). */
function valuesOf(value: Entry[string] | undefined): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
}

function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, '');
}

/** A search base the directory does not have: the member and the DN named, rather than ldapts' bare result code. */
function noSuchBase(member: 'userBase' | 'groupBase', base: string, cause: unknown): ServerFailure {
  return new ServerFailure(`No Such Object: ${member} "${base}" is not in the directory; set ${member} to an entry that exists`, {
    cause,
  });
}

/** A failure in words for the log and the 503 message: the code and message of the error, never a credential. */
function describe(err: unknown): string {
  // ldapts' result-code errors carry the server's diagnostic, often empty (" Code: 0x20"): name the result too
  if (err instanceof ldapts().ResultCodeError) return `${err.name.replace(/Error$/, '')}: ${err.message.trim()}`;
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code !== undefined && !err.message.includes(code) ? `${code} ${err.message}` : err.message;
  }
  return String(err);
}
