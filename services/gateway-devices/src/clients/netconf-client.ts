import { AppError } from '@nap/contracts';
import type { ClientChannel } from 'ssh2';
import { EOM_MARKER, FramingDecoder, NetconfFramingError, encodeMessage } from './netconf-framing';
import type { NetconfFraming } from './netconf-framing';
import {
  NETCONF_BASE_1_0,
  NETCONF_BASE_1_1,
  NETCONF_BASE_NS,
  escapeXml,
  firstElementName,
  parseHello,
  parseReply,
} from '../domain/netconf-xml';
import type { NetconfReply, NetconfRpcError } from '../domain/netconf-xml';
import { boundedBy, describeTarget, openSshConnection } from './ssh-connection';
import type { SshConnection, SshTarget } from './ssh-connection';

/** How to reach a NETCONF agent: SSH target (port usually 830) plus timeouts. */
export interface NetconfOptions extends SshTarget {
  /** Bound of each RPC; defaults to {@link DEFAULT_RPC_TIMEOUT_MS}. */
  rpcTimeoutMs?: number;
  /** Bound of the hello exchange after login; defaults to the ready timeout or 10 s. */
  helloTimeoutMs?: number;
  /** Base versions the client offers; defaults to both. Offer only `1.0` to force end-of-message framing. */
  baseVersions?: readonly ('1.0' | '1.1')[];
  /** Longest hello or reply taken, bytes; a longer one ends the session (`UPSTREAM_FAILED`). Defaults to 64 MiB (`MAX_NETCONF_MESSAGE_BYTES`). */
  maxMessageBytes?: number;
}

/** A datastore name. */
export type NetconfDatastore = 'running' | 'candidate' | 'startup';

/** A filter: subtree XML (a string starting with `<`), an XPath expression, or explicit. */
export type NetconfFilter = string | { type: 'subtree' | 'xpath'; value: string };

/** Arguments of `<edit-config>` and the optional lock and commit around it. */
export interface EditConfigRequest {
  /** Defaults to `candidate` when the agent has `:candidate`, else `running`. */
  target?: 'running' | 'candidate';
  /** Configuration XML, with or without the `<config>` wrapper. */
  config: string;
  defaultOperation?: 'merge' | 'replace' | 'none';
  testOption?: 'test-then-set' | 'set' | 'test-only';
  errorOption?: 'stop-on-error' | 'continue-on-error' | 'rollback-on-error';
  /** Lock the target for the edit (and the commit), unlocking afterwards whatever happens. Default false. */
  lock?: boolean;
  /** Commit after the edit; defaults to true when the target is `candidate`. */
  commit?: boolean;
}

/** An open NETCONF session. */
export interface NetconfSession {
  readonly label: string;
  /**
   * Logs in, opens the `netconf` subsystem and exchanges hellos; framing follows the capabilities
   * (base:1.1 on both sides → chunked). Errors as in `openSshConnection`, plus `DEVICE_UNREACHABLE`
   * (no NETCONF subsystem) and `DEVICE_TIMEOUT` (no hello).
   */
  connect(): Promise<void>;
  /** The agent's capabilities. */
  capabilities(): readonly string[];
  hasCapability(prefix: string): boolean;
  /** The agent-assigned session id. */
  sessionId(): string | undefined;
  framing(): NetconfFraming;
  /**
   * Sends one operation (the XML inside `<rpc>`) and returns the whole `<rpc-reply>`. An `<rpc-error>`
   * of severity error becomes `DEVICE_COMMAND_FAILED` with every error in `details.errors`;
   * no reply within the timeout is `DEVICE_TIMEOUT`.
   */
  rpc(operationXml: string, options?: { timeoutMs?: number }): Promise<string>;
  /** `<get>`; returns the content of `<data>`. */
  get(request?: { filter?: NetconfFilter }): Promise<string>;
  /** `<get-config>`; returns the content of `<data>`. */
  getConfig(request?: { source?: NetconfDatastore; filter?: NetconfFilter }): Promise<string>;
  /** `<edit-config>`, with optional lock/unlock and commit. */
  editConfig(request: EditConfigRequest): Promise<void>;
  lock(target: NetconfDatastore): Promise<void>;
  unlock(target: NetconfDatastore): Promise<void>;
  commit(): Promise<void>;
  discardChanges(): Promise<void>;
  /** Sends `<close-session>` (best effort) and closes the connection. Idempotent. */
  close(): Promise<void>;
}

/** Default bound of one RPC. */
export const DEFAULT_RPC_TIMEOUT_MS = 30_000;

/** The capability of agents that have a candidate datastore. */
export const CAPABILITY_CANDIDATE = 'urn:ietf:params:netconf:capability:candidate:1.0';

/** Creates a NETCONF session; call `connect()` first. */
export function createNetconfSession(options: NetconfOptions): NetconfSession {
  return new NetconfClientSession(options);
}

/** Opens a NETCONF session, runs `fn` with it and always closes it. */
export async function withNetconfSession<T>(options: NetconfOptions, fn: (session: NetconfSession) => Promise<T>): Promise<T> {
  const session = createNetconfSession(options);
  try {
    await session.connect();
    return await fn(session);
  } finally {
    await session.close();
  }
}

interface Pending {
  operation: string;
  resolve: (reply: Answer) => void;
  reject: (err: Error) => void;
  timers: NodeJS.Timeout[];
}

/** A reply as received and as parsed. */
interface Answer {
  xml: string;
  reply: NetconfReply;
}

/**
 * How long the first RPC of a session may go unanswered before the client sends a read-only probe
 * after it. RFC 6241 lets both peers send their hello at once, so the agent may read the client's
 * hello and its first RPC in one go; yuma123 netconfd then holds that RPC until more input arrives,
 * and it would wait for the RPC timeout. The probe is that input; its reply is dropped.
 */
export const FIRST_RPC_PROBE_AFTER_MS = 1_000;

/** The probe: a `<get-config>` whose filter selects nothing, answered with empty data or an rpc-error. */
const PROBE = '<get-config><source><running/></source><filter type="subtree"><probe xmlns="urn:nap:netconf:probe"/></filter></get-config>';

class NetconfClientSession implements NetconfSession {
  readonly label: string;
  private connection: SshConnection | undefined;
  private channel: ClientChannel | undefined;
  private readonly decoder: FramingDecoder;
  private caps: string[] = [];
  private id: string | undefined;
  private nextMessageId = 1;
  private readonly pending = new Map<string, Pending>();
  private hello: { resolve: (xml: string) => void; reject: (err: Error) => void } | undefined;
  private failure: AppError | undefined;
  private closed = false;

  constructor(private readonly options: NetconfOptions) {
    this.label = describeTarget({ ...options, port: options.port ?? 830 });
    this.decoder = new FramingDecoder('eom', options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes });
  }

  capabilities(): readonly string[] {
    return this.caps;
  }

  hasCapability(prefix: string): boolean {
    return this.caps.some((c) => c.startsWith(prefix));
  }

  sessionId(): string | undefined {
    return this.id;
  }

  framing(): NetconfFraming {
    return this.decoder.getFraming();
  }

  async connect(): Promise<void> {
    if (this.connection !== undefined) throw new AppError('INTERNAL', `The NETCONF session with ${this.label} is already connected`);
    this.connection = await openSshConnection({ ...this.options, port: this.options.port ?? 830 });
    try {
      await this.openSubsystem();
    } catch (err) {
      await this.connection.close();
      throw err;
    }
  }

  private async openSubsystem(): Promise<void> {
    const connection = this.connection;
    if (connection === undefined) throw new AppError('INTERNAL', 'not connected');
    const user = this.options.username;
    const timeoutMs = this.options.helloTimeoutMs ?? this.options.readyTimeoutMs ?? 10_000;
    this.channel = await boundedBy(
      new Promise<ClientChannel>((resolve, reject) => {
        connection.client.subsys('netconf', (err, stream) => {
          if (err !== undefined && err !== null) {
            reject(new AppError('DEVICE_UNREACHABLE', `${this.label} offers no NETCONF subsystem to user "${user}"`, { cause: err }));
          } else {
            resolve(stream);
          }
        });
      }),
      timeoutMs,
      () =>
        new AppError('DEVICE_TIMEOUT', `${this.label} did not open the NETCONF subsystem for user "${user}" within ${timeoutMs} ms`, {
          details: { timeoutMs },
        }),
    );
    const channel = this.channel;
    channel.stderr.on('data', () => undefined);
    channel.on('data', (data: Buffer) => this.onData(data));
    channel.on('close', () => this.fail(new AppError('DEVICE_UNREACHABLE', `${this.label} closed the NETCONF session of user "${user}"`)));

    const versions = this.options.baseVersions ?? ['1.0', '1.1'];
    const offered = versions.map((v) => (v === '1.1' ? NETCONF_BASE_1_1 : NETCONF_BASE_1_0));
    const serverHello = new Promise<string>((resolve, reject) => {
      this.hello = { resolve, reject };
    });
    // RFC 6241 §8.1: both peers send their hello at once, always with end-of-message framing.
    channel.write(
      encodeMessage(
        `<?xml version="1.0" encoding="UTF-8"?><hello xmlns="${NETCONF_BASE_NS}"><capabilities>${offered
          .map((c) => `<capability>${c}</capability>`)
          .join('')}</capabilities></hello>`,
        'eom',
      ),
    );
    try {
      const helloXml = await boundedBy(
        serverHello,
        timeoutMs,
        () =>
          new AppError('DEVICE_TIMEOUT', `${this.label} sent no NETCONF hello within ${timeoutMs} ms (user "${user}")`, {
            details: { timeoutMs },
          }),
      );
      const hello = parseHello(helloXml);
      this.caps = hello.capabilities;
      this.id = hello.sessionId;
    } finally {
      this.hello = undefined;
    }
    if (this.caps.includes(NETCONF_BASE_1_1) && versions.includes('1.1')) this.decoder.setFraming('chunked');
  }

  private onData(data: Buffer): void {
    let messages: string[];
    try {
      messages = this.decoder.push(data);
    } catch (err) {
      if (!(err instanceof NetconfFramingError)) throw err;
      this.fail(new AppError('UPSTREAM_FAILED', `${this.label} broke NETCONF framing: ${err.message}`, { cause: err }));
      void this.connection?.close();
      return;
    }
    for (const message of messages) this.onMessage(message);
  }

  private onMessage(xml: string): void {
    if (this.hello !== undefined) {
      this.hello.resolve(xml);
      return;
    }
    const reply = parseReply(xml);
    if (reply === undefined) return; // notifications are not used by the gateway
    const id = reply.messageId;
    const pending = id === undefined ? undefined : this.pending.get(id);
    // A reply to an RPC that already timed out, or to a probe, is dropped; ids are never reused.
    if (id === undefined || pending === undefined) return;
    this.pending.delete(id);
    for (const timer of pending.timers) clearTimeout(timer);
    const errors = reply.errors.filter((e) => e.severity !== 'warning');
    if (errors.length > 0) {
      pending.reject(rpcErrorToAppError(this.label, pending.operation, errors));
    } else {
      pending.resolve({ xml, reply });
    }
  }

  private fail(err: AppError): void {
    if (this.failure === undefined) this.failure = err;
    this.hello?.reject(err);
    for (const [id, p] of this.pending) {
      for (const timer of p.timers) clearTimeout(timer);
      p.reject(err);
      this.pending.delete(id);
    }
  }

  async rpc(operationXml: string, options: { timeoutMs?: number } = {}): Promise<string> {
    return (await this.send(firstElementName(operationXml), operationXml, options)).xml;
  }

  /** Sends one operation (`operation` names it in messages) and waits for its reply. */
  private send(operation: string, operationXml: string, options: { timeoutMs?: number } = {}): Promise<Answer> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const channel = this.channel;
    if (channel === undefined || this.closed) {
      return Promise.reject(new AppError('INTERNAL', `The NETCONF session with ${this.label} is not connected; call connect() first`));
    }
    // base:1.0 ends a message at the marker: what follows it would be a message of its own
    if (this.decoder.getFraming() === 'eom' && operationXml.includes(EOM_MARKER))
      return Promise.reject(
        new AppError(
          'VALIDATION_FAILED',
          `NETCONF <${operation}> for ${this.label} holds the end-of-message marker ${EOM_MARKER}, which base:1.0 framing cannot carry`,
        ),
      );
    const messageId = String(this.nextMessageId++);
    const timeoutMs = options.timeoutMs ?? this.options.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
    return new Promise<Answer>((resolve, reject) => {
      const timers = [
        setTimeout(() => {
          if (!this.pending.delete(messageId)) return;
          reject(
            new AppError(
              'DEVICE_TIMEOUT',
              `${this.label} did not answer NETCONF <${operation}> within ${timeoutMs} ms (user "${this.options.username}")`,
              {
                details: { operation, messageId, timeoutMs },
              },
            ),
          );
        }, timeoutMs),
      ];
      if (messageId === '1' && operation !== 'close-session')
        timers.push(setTimeout(() => this.probe(messageId), FIRST_RPC_PROBE_AFTER_MS));
      this.pending.set(messageId, { operation, resolve, reject, timers });
      channel.write(this.frame(messageId, operationXml));
    });
  }

  /** Sends {@link PROBE} when the RPC `awaited` is still unanswered (see {@link FIRST_RPC_PROBE_AFTER_MS}). */
  private probe(awaited: string): void {
    if (!this.pending.has(awaited) || this.failure !== undefined || this.closed) return;
    this.channel?.write(this.frame(`probe-${awaited}`, PROBE));
  }

  private frame(messageId: string, operationXml: string): string {
    return encodeMessage(`<rpc message-id="${messageId}" xmlns="${NETCONF_BASE_NS}">${operationXml}</rpc>`, this.decoder.getFraming());
  }

  async get(request: { filter?: NetconfFilter } = {}): Promise<string> {
    return (await this.send('get', `<get>${filterXml(request.filter)}</get>`)).reply.data;
  }

  async getConfig(request: { source?: NetconfDatastore; filter?: NetconfFilter } = {}): Promise<string> {
    const source = request.source ?? 'running';
    return (await this.send('get-config', `<get-config><source><${datastore(source)}/></source>${filterXml(request.filter)}</get-config>`))
      .reply.data;
  }

  async editConfig(request: EditConfigRequest): Promise<void> {
    const target = request.target ?? (this.hasCapability(CAPABILITY_CANDIDATE) ? 'candidate' : 'running');
    const commit = request.commit ?? target === 'candidate';
    const config = firstElementName(request.config) === 'config' ? request.config : `<config>${request.config}</config>`;
    const options = [
      request.defaultOperation === undefined ? '' : `<default-operation>${request.defaultOperation}</default-operation>`,
      request.testOption === undefined ? '' : `<test-option>${request.testOption}</test-option>`,
      request.errorOption === undefined ? '' : `<error-option>${request.errorOption}</error-option>`,
    ].join('');
    if (request.lock === true) await this.lock(target);
    try {
      await this.send('edit-config', `<edit-config><target><${datastore(target)}/></target>${options}${config}</edit-config>`);
      if (commit && target === 'candidate') await this.commit();
    } catch (err) {
      // Leave the shared candidate as it was, so the next editor does not commit half an edit.
      if (target === 'candidate' && this.failure === undefined) await this.discardChanges().catch(() => undefined);
      throw err;
    } finally {
      if (request.lock === true && this.failure === undefined) await this.unlock(target).catch(() => undefined);
    }
  }

  async lock(target: NetconfDatastore): Promise<void> {
    await this.send('lock', `<lock><target><${datastore(target)}/></target></lock>`);
  }

  async unlock(target: NetconfDatastore): Promise<void> {
    await this.send('unlock', `<unlock><target><${datastore(target)}/></target></unlock>`);
  }

  async commit(): Promise<void> {
    await this.send('commit', '<commit/>');
  }

  async discardChanges(): Promise<void> {
    await this.send('discard-changes', '<discard-changes/>');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.channel !== undefined && this.failure === undefined) {
      await this.send('close-session', '<close-session/>', { timeoutMs: 2_000 }).catch(() => undefined);
    }
    this.closed = true;
    await this.connection?.close();
  }
}

function datastore(name: string): string {
  if (name !== 'running' && name !== 'candidate' && name !== 'startup') {
    throw new AppError('VALIDATION_FAILED', `Unknown NETCONF datastore "${name}"; use running, candidate or startup`);
  }
  return name;
}

function filterXml(filter: NetconfFilter | undefined): string {
  if (filter === undefined) return '';
  const spec =
    typeof filter === 'string'
      ? { type: filter.trimStart().startsWith('<') ? ('subtree' as const) : ('xpath' as const), value: filter }
      : filter;
  if (spec.value.trim() === '') return '';
  return spec.type === 'subtree'
    ? `<filter type="subtree">${spec.value}</filter>`
    : `<filter type="xpath" select="${escapeXml(spec.value)}"/>`;
}

function rpcErrorToAppError(label: string, operation: string, errors: NetconfRpcError[]): AppError {
  const first = errors[0] ?? {};
  const what = [first.tag, first.message].filter((s) => s !== undefined && s !== '').join(': ');
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return new AppError(
    'DEVICE_COMMAND_FAILED',
    `${label} answered NETCONF <${operation}> with rpc-error ${what || 'without details'}${first.path === undefined ? '' : ` at ${first.path}`}${more}`,
    {
      details: { operation, errors },
    },
  );
}
