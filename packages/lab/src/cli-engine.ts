import { ciscoShowOutputs, junosShowOutputs } from './cli-data';
import type { CliFamily, ConfigNode } from './cli-data';
import { JUNOS_SINGLE_VALUED, cloneNodes, junosTokens, renderJunosConfig, unquote } from './cli-model';
import type { DeviceModel, InterfaceInfo } from './cli-model';

/** A per-test command output: text, or a function computing it at each call. */
export type CommandOverride = string | (() => string);

/** Behaviour of one simulated CLI session. */
export interface EngineOptions {
  username: string;
  /** When set, `enable` asks for it; otherwise `enable` needs no password. */
  enableSecret?: string;
  /** Log in at the privileged prompt (`#`) instead of user exec (`>`). */
  startPrivileged: boolean;
  /** Printed after login, before the first prompt. */
  motd: string;
  /** Exact commands (case and spacing ignored) answered with these outputs, before the built-ins. */
  commands: Readonly<Record<string, CommandOverride>>;
  /** Delay before each reply. */
  slowMs: number;
  /** A command after which the device never answers again. */
  hangOn?: string | RegExp;
  /** Never print a recognisable prompt. */
  noPrompt: boolean;
  /** Lines per page until paging is disabled. */
  pageLength: number;
  /** Called with every command line entered. */
  onCommand?: (line: string) => void;
}

/** Where a session writes. */
export interface EngineIo {
  write(text: string): void;
  end(): void;
}

interface Reply {
  lines: string[];
  pageable?: boolean;
  ask?: Ask;
  close?: boolean;
}

interface Ask {
  prompt: string;
  secret?: boolean;
  answer: (text: string) => Reply;
}

interface Token {
  text: string;
  offset: number;
}

const ARG = '<arg>';
const REST = '<rest>';

interface Spec {
  id: string;
  words: string[];
  priv?: boolean;
  families?: CliFamily[];
}

type Resolution =
  { kind: 'ok'; spec: Spec; args: string[] } | { kind: 'invalid'; at: number } | { kind: 'incomplete' } | { kind: 'ambiguous'; at: number };

/** Matches tokens against command specs the way IOS and Junos parsers do: unique keyword prefixes. */
function resolve(tokens: readonly Token[], specs: readonly Spec[]): Resolution {
  interface Candidate {
    spec: Spec;
    args: string[];
    done: boolean;
  }
  let candidates: Candidate[] = specs.map((spec) => ({ spec, args: [], done: false }));
  for (let i = 0; i < tokens.length; i++) {
    const tok = (tokens[i]?.text ?? '').toLowerCase();
    const literal: Candidate[] = [];
    const exact: Candidate[] = [];
    const args: Candidate[] = [];
    const keywords = new Set<string>();
    for (const c of candidates) {
      if (c.done) {
        args.push(c);
        continue;
      }
      const word = c.spec.words[i];
      if (word === undefined) continue;
      if (word === REST) {
        args.push({
          spec: c.spec,
          args: [
            ...c.args,
            tokens
              .slice(i)
              .map((t) => t.text)
              .join(' '),
          ],
          done: true,
        });
      } else if (word === ARG) {
        args.push({ spec: c.spec, args: [...c.args, tokens[i]?.text ?? ''], done: false });
      } else if (word.startsWith(tok)) {
        literal.push(c);
        keywords.add(word);
        if (word === tok) exact.push(c);
      }
    }
    let next: Candidate[];
    if (exact.length > 0) next = exact;
    else if (literal.length > 0) {
      if (keywords.size > 1) return { kind: 'ambiguous', at: i };
      next = literal;
    } else next = args;
    if (next.length === 0) return { kind: 'invalid', at: i };
    candidates = next;
  }
  const complete = candidates.find((c) => c.done || c.spec.words.length === tokens.length);
  if (complete !== undefined) return { kind: 'ok', spec: complete.spec, args: complete.args };
  return { kind: 'incomplete' };
}

function tokenize(line: string, quoted = false): Token[] {
  const re = quoted ? /"[^"]*"|\S+/g : /\S+/g;
  return [...line.matchAll(re)].map((m) => ({ text: m[0], offset: m.index ?? 0 }));
}

function normalizeCommand(line: string): string {
  return line.trim().replace(/\s+/g, ' ').toLowerCase();
}

// Splits `cmd | filter | filter`; a `|` without a space before it belongs to a regex (`include a|b`).
function splitPipes(line: string): { command: string; pipes: string[] } {
  const parts = line.split(/\s\|\s*/);
  return { command: parts[0] ?? '', pipes: parts.slice(1) };
}

const CISCO_EXEC_SPECS: Spec[] = [
  { id: 'show-run', words: ['show', 'running-config'], priv: true },
  { id: 'show-run-if', words: ['show', 'running-config', 'interface', REST], priv: true },
  { id: 'show-start', words: ['show', 'startup-config'], priv: true },
  { id: 'show-ip-int-brief', words: ['show', 'ip', 'interface', 'brief'] },
  { id: 'show-int', words: ['show', 'interfaces'], families: ['ios', 'eos'] },
  { id: 'show-int-one', words: ['show', 'interfaces', REST], families: ['ios', 'eos'] },
  { id: 'show-int', words: ['show', 'interface'], families: ['nxos'] },
  { id: 'show-int-brief', words: ['show', 'interface', 'brief'], families: ['nxos'] },
  { id: 'show-users', words: ['show', 'users'] },
  { id: 'show-privilege', words: ['show', 'privilege'] },
  { id: 'show-hostname', words: ['show', 'hostname'], families: ['eos', 'nxos'] },
  { id: 'terminal-length', words: ['terminal', 'length', ARG] },
  { id: 'terminal-width', words: ['terminal', 'width', ARG] },
  { id: 'terminal-monitor', words: ['terminal', 'monitor'] },
  { id: 'enable', words: ['enable'] },
  { id: 'disable', words: ['disable'] },
  { id: 'configure', words: ['configure', 'terminal'], priv: true },
  { id: 'configure', words: ['configure'], priv: true, families: ['eos', 'nxos'] },
  { id: 'write', words: ['write', 'memory'], priv: true },
  { id: 'write', words: ['write'], priv: true, families: ['ios', 'eos'] },
  { id: 'copy-run-start', words: ['copy', 'running-config', 'startup-config'], priv: true },
  { id: 'ping', words: ['ping', REST] },
  { id: 'exit', words: ['exit'] },
  { id: 'exit', words: ['logout'] },
  { id: 'exit', words: ['quit'], families: ['eos'] },
];

const JUNOS_OP_SPECS: Spec[] = [
  { id: 'show-config', words: ['show', 'configuration'] },
  { id: 'show-config-path', words: ['show', 'configuration', REST] },
  { id: 'show-int-terse', words: ['show', 'interfaces', 'terse'] },
  { id: 'show-int', words: ['show', 'interfaces'] },
  { id: 'show-int-one', words: ['show', 'interfaces', ARG] },
  { id: 'cli-screen-length', words: ['set', 'cli', 'screen-length', ARG] },
  { id: 'cli-screen-width', words: ['set', 'cli', 'screen-width', ARG] },
  { id: 'cli-complete-on-space', words: ['set', 'cli', 'complete-on-space', ARG] },
  { id: 'configure', words: ['configure'] },
  { id: 'configure', words: ['configure', 'private'] },
  { id: 'configure', words: ['configure', 'exclusive'] },
  { id: 'exit', words: ['exit'] },
  { id: 'exit', words: ['quit'] },
];

const JUNOS_CONFIG_VERBS = ['set', 'delete', 'show', 'commit', 'rollback', 'exit', 'quit', 'top', 'up', 'edit', 'run', 'status'];
const JUNOS_TOP_LEVEL = new Set([
  'system',
  'interfaces',
  'protocols',
  'routing-options',
  'policy-options',
  'firewall',
  'snmp',
  'vlans',
  'security',
  'chassis',
  'class-of-service',
  'routing-instances',
  'groups',
  'apply-groups',
  'version',
  'forwarding-options',
  'services',
  'event-options',
  'access',
  'poe',
  'bridge-domains',
  'applications',
  'switch-options',
]);

const GLOBAL_KEYWORDS = [
  'hostname',
  'interface',
  'router',
  'line',
  'vlan',
  'ip',
  'ipv6',
  'username',
  'enable',
  'service',
  'logging',
  'ntp',
  'snmp-server',
  'banner',
  'spanning-tree',
  'aaa',
  'clock',
  'crypto',
  'access-list',
  'route-map',
  'class-map',
  'policy-map',
  'feature',
  'management',
  'vrf',
  'boot',
  'archive',
  'cdp',
  'lldp',
  'errdisable',
  'mac',
  'license',
  'control-plane',
  'alias',
  'tacacs-server',
  'radius-server',
  'key',
  'track',
  'transceiver',
  'daemon',
  'version',
  'system',
  'event',
  'redundancy',
];
const INTERFACE_KEYWORDS = [
  'description',
  'ip',
  'ipv6',
  'shutdown',
  'switchport',
  'speed',
  'duplex',
  'mtu',
  'channel-group',
  'spanning-tree',
  'bandwidth',
  'encapsulation',
  'standby',
  'vrrp',
  'negotiation',
  'load-interval',
  'cdp',
  'lldp',
  'service-policy',
  'media-type',
  'logging',
  'delay',
  'storm-control',
  'vrf',
  'mpls',
  'isis',
  'carrier-delay',
  'keepalive',
];
const IP_SUBCOMMANDS = [
  'address',
  'route',
  'domain',
  'domain-name',
  'routing',
  'ospf',
  'access-list',
  'name-server',
  'helper-address',
  'mtu',
  'nat',
  'vrf',
  'http',
  'ssh',
  'scp',
  'tftp',
  'arp',
  'dhcp',
  'cef',
  'host',
  'default-gateway',
  'prefix-list',
  'igmp',
  'pim',
  'multicast-routing',
  'proxy-arp',
  'redirects',
  'unreachables',
];
// Keywords that need at least one argument.
const NEEDS_ARGUMENT = new Set([
  'hostname',
  'interface',
  'description',
  'router',
  'vlan',
  'line',
  'username',
  'banner',
  'mtu',
  'speed',
  'duplex',
  'ntp',
  'feature',
]);
// Settings a new value replaces rather than adds to.
const SINGLE_KEYS = [
  'hostname',
  'description',
  'ip address',
  'ipv6 address',
  'mtu',
  'speed',
  'duplex',
  'bandwidth',
  'ip domain name',
  'ip domain-name',
  'ip domain lookup',
  'ip routing',
  'clock timezone',
  'switchport mode',
  'switchport access vlan',
  'switchport',
  'name',
  'banner motd',
  'banner login',
  'enable secret',
  'enable password',
  'encapsulation',
  'channel-group',
  'version',
  'exec-timeout',
  'transport input',
  'router-id',
  'ip mtu',
  'load-interval',
  'vrf forwarding',
  'vrf member',
  'spanning-tree mode',
  'logging synchronous',
  'login',
  'shutdown',
  'service password-encryption',
].sort((a, b) => b.length - a.length);
// Keywords that are both global commands and sub-mode commands (`ip ospf cost` under an interface).
const SUBMODE_SHARED = new Set(['ip', 'ipv6', 'logging', 'cdp', 'lldp', 'mac', 'spanning-tree', 'vrf']);
// Negations the device shows in its configuration (`no ip address`), per family.
const SHOWN_NEGATIONS: Record<Exclude<CliFamily, 'junos'>, string[]> = {
  ios: ['ip address', 'ip domain lookup', 'service password-encryption'],
  nxos: ['shutdown', 'switchport'],
  eos: ['switchport'],
};

const INTERFACE_TYPES: Record<Exclude<CliFamily, 'junos'>, string[]> = {
  ios: ['GigabitEthernet', 'FastEthernet', 'TenGigabitEthernet', 'Loopback', 'Vlan', 'Port-channel', 'Tunnel', 'Serial'],
  nxos: ['Ethernet', 'loopback', 'mgmt', 'Vlan', 'port-channel'],
  eos: ['Ethernet', 'Loopback', 'Management', 'Vlan', 'Port-Channel'],
};

function leafKey(line: string): string {
  const l = line.replace(/^no /, '');
  for (const key of SINGLE_KEYS) if (l === key || l.startsWith(`${key} `)) return key;
  const user = /^username \S+/.exec(l);
  return user === null ? l : user[0];
}

/**
 * One interactive CLI session of a simulated device. Characters are processed one at a time with
 * echo, line editing, `--More--` paging and mode-dependent prompts; replies wait `slowMs` and the
 * session can be made to hang or never show a prompt. State shared between sessions (the
 * configuration) lives in the {@link DeviceModel}.
 */
export class CliEngine {
  private ciscoMode: 'user' | 'priv' | 'config';
  private sub: { node: ConfigNode; name: string } | undefined;
  private junosConfig = false;
  /** Junos `root` logs in at the FreeBSD shell and needs `cli`. */
  private junosShell: boolean;
  private editPath: string[] = [];
  private pagingLength: number;
  private pending = '';
  private busy = false;
  private hung = false;
  private closed = false;
  private lineBuffer = '';
  private lastWasCr = false;
  private pager: { lines: string[]; total: number; shown: number } | undefined;
  private asking: Ask | undefined;
  private readonly specs: Spec[];

  constructor(
    private readonly model: DeviceModel,
    private readonly opts: EngineOptions,
    private readonly io: EngineIo,
  ) {
    this.ciscoMode = opts.startPrivileged || model.family === 'nxos' ? 'priv' : 'user';
    this.junosShell = model.family === 'junos' && opts.username === 'root';
    this.pagingLength = opts.pageLength;
    const staticKeys = Object.keys(
      model.family === 'junos' ? junosShowOutputs('', new Date()) : ciscoShowOutputs(model.family, '', new Date()),
    );
    const statics: Spec[] = staticKeys.map((key) => ({ id: 'static', words: key.split(' ') }));
    this.specs =
      model.family === 'junos'
        ? [...JUNOS_OP_SPECS, ...statics]
        : [...CISCO_EXEC_SPECS.filter((s) => s.families === undefined || s.families.includes(model.family)), ...statics];
  }

  /** Prints the banner and the first prompt. */
  start(): void {
    if (this.opts.motd !== '') this.write(this.opts.motd.replace(/\r?\n/g, '\r\n'));
    if (this.opts.noPrompt) {
      this.write('Lab device ready\r\n');
      return;
    }
    this.writePrompt();
  }

  /** Feeds keystrokes from the client. */
  input(data: string): void {
    if (this.hung || this.closed) return;
    this.pending += data;
    this.pump();
  }

  /** Runs one command as an exec channel does: privileged, no paging, no echo, no prompt. */
  runBatch(line: string): { output: string; exitCode: number } {
    this.ciscoMode = 'priv';
    this.junosShell = false;
    this.pagingLength = 0;
    let reply = this.evaluate(line);
    const lines = [...reply.lines];
    for (let i = 0; i < 3 && reply.ask !== undefined; i++) {
      reply = reply.ask.answer('');
      lines.push(...reply.lines);
    }
    const output = lines.join('\n');
    const failed = /^% |^syntax error|^unknown command/m.test(output);
    return { output: output === '' ? '' : `${output}\n`, exitCode: failed ? 1 : 0 };
  }

  // Writes are gathered and flushed once per turn: a packet per echoed character would make every
  // exchange wait on Nagle and delayed ACKs.
  private outBuffer = '';
  private flushScheduled = false;

  private write(text: string): void {
    if (this.closed || text === '') return;
    this.outBuffer += text;
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const text = this.outBuffer;
    this.outBuffer = '';
    if (text !== '') this.io.write(text);
  }

  private promptText(): string {
    const host = this.model.hostname();
    if (this.model.family === 'junos') {
      if (this.junosShell) return `${this.opts.username}@${host}:RE:0% `;
      return `${this.opts.username}@${host}${this.junosConfig ? '#' : '>'} `;
    }
    if (this.ciscoMode === 'config') return `${host}(${this.sub?.name ?? 'config'})#`;
    return `${host}${this.ciscoMode === 'user' ? '>' : '#'}`;
  }

  private writePrompt(): void {
    if (this.opts.noPrompt) return;
    if (this.model.family === 'junos' && this.junosConfig) {
      this.write(`\r\n[edit${this.editPath.length > 0 ? ` ${this.editPath.join(' ')}` : ''}]\r\n${this.promptText()}`);
    } else {
      this.write(this.promptText());
    }
  }

  private pump(): void {
    while (!this.busy && !this.hung && !this.closed && this.pending.length > 0) {
      const ch = this.pending[0] ?? '';
      this.pending = this.pending.slice(1);
      this.handleChar(ch);
    }
  }

  private handleChar(ch: string): void {
    const wasCr = this.lastWasCr;
    this.lastWasCr = ch === '\r';
    if (this.pager !== undefined) {
      if (ch === '\n' && wasCr) return;
      this.pagerKey(ch);
      return;
    }
    switch (ch) {
      case '\n':
        if (wasCr) return;
        this.enter();
        return;
      case '\r':
        this.enter();
        return;
      case '\x7f':
      case '\b':
        if (this.lineBuffer.length > 0) {
          this.lineBuffer = this.lineBuffer.slice(0, -1);
          if (this.asking?.secret !== true) this.write('\b \b');
        }
        return;
      case '\x03':
        this.lineBuffer = '';
        this.asking = undefined;
        this.write('^C\r\n');
        this.writePrompt();
        return;
      case '\x1a':
        this.lineBuffer = '';
        if (this.model.family !== 'junos' && this.ciscoMode === 'config') {
          this.ciscoMode = 'priv';
          this.sub = undefined;
        }
        this.write('^Z\r\n');
        this.writePrompt();
        return;
      case '\x00':
      case '\t':
      case '\x1b':
        return;
      default:
        if (ch < ' ') return;
        this.lineBuffer += ch;
        if (this.asking?.secret !== true) this.write(ch);
    }
  }

  private enter(): void {
    const line = this.lineBuffer;
    this.lineBuffer = '';
    this.write('\r\n');
    const asking = this.asking;
    if (asking !== undefined) {
      this.asking = undefined;
      this.reply(asking.answer(line));
      return;
    }
    this.opts.onCommand?.(line);
    if (this.matchesHang(line)) {
      // A hung device keeps the TCP session but never answers again.
      this.hung = true;
      return;
    }
    if (this.opts.noPrompt) {
      this.write(line.trim() === '' ? '' : 'ok\r\n');
      return;
    }
    if (line.trim() === '') {
      this.writePrompt();
      return;
    }
    this.reply(this.evaluate(line));
  }

  private matchesHang(line: string): boolean {
    const hang = this.opts.hangOn;
    if (hang === undefined || line.trim() === '') return false;
    return typeof hang === 'string' ? normalizeCommand(hang) === normalizeCommand(line) : hang.test(line);
  }

  private reply(reply: Reply): void {
    const deliver = (): void => {
      this.busy = false;
      this.deliver(reply);
      this.pump();
    };
    if (this.opts.slowMs > 0) {
      this.busy = true;
      setTimeout(deliver, this.opts.slowMs);
    } else {
      deliver();
    }
  }

  private deliver(reply: Reply): void {
    if (this.closed) return;
    const lines = [...reply.lines];
    // Junos leaves a blank line between output and the operational prompt.
    if (this.model.family === 'junos' && !this.junosConfig && lines.length > 0 && reply.ask === undefined && reply.close !== true)
      lines.push('');
    const page = this.pagingLength;
    if (reply.pageable === true && page > 0 && lines.length > page) {
      this.writeLines(lines.slice(0, page));
      this.pager = { lines: lines.slice(page), total: lines.length, shown: page };
      this.write(this.pagerText());
      return;
    }
    this.writeLines(lines);
    this.finishReply(reply);
  }

  private finishReply(reply: Reply): void {
    if (reply.close === true) {
      this.flush();
      this.closed = true;
      this.io.end();
      return;
    }
    if (reply.ask !== undefined) {
      this.asking = reply.ask;
      this.write(reply.ask.prompt);
      return;
    }
    this.writePrompt();
  }

  private pagerText(): string {
    if (this.model.family === 'junos' && this.pager !== undefined)
      return `---(more ${Math.floor((100 * this.pager.shown) / this.pager.total)}%)---`;
    return ' --More-- ';
  }

  private pagerKey(ch: string): void {
    const pager = this.pager;
    if (pager === undefined) return;
    let count: number;
    if (ch === ' ') count = this.pagingLength;
    else if (ch === '\r' || ch === '\n') count = 1;
    else if (ch === 'q' || ch === 'Q' || ch === '\x03') count = -1;
    else return;
    // Erase the pager text the way IOS does: back over it, blank it, back again.
    const width = this.pagerText().length;
    this.write(`${'\b'.repeat(width)}${' '.repeat(width)}${'\b'.repeat(width)}`);
    if (count < 0) {
      this.pager = undefined;
      this.writePrompt();
      return;
    }
    const next = pager.lines.slice(0, count);
    pager.lines = pager.lines.slice(count);
    pager.shown += next.length;
    this.writeLines(next);
    if (pager.lines.length > 0) {
      this.write(this.pagerText());
      return;
    }
    this.pager = undefined;
    this.writePrompt();
  }

  private writeLines(lines: readonly string[]): void {
    if (lines.length > 0) this.write(lines.map((l) => `${l}\r\n`).join(''));
  }

  // --- evaluation ---------------------------------------------------------------------------------

  private evaluate(line: string): Reply {
    const promptLength = this.promptText().length;
    if (this.junosShell) return this.junosShellLine(line);
    if (this.model.family === 'junos')
      return this.junosConfig ? this.junosConfigLine(line, promptLength) : this.junosOp(line, promptLength);
    if (this.ciscoMode === 'config') return this.ciscoConfigLine(line, promptLength);
    return this.ciscoExec(line, promptLength);
  }

  private override(command: string): string | undefined {
    const key = normalizeCommand(command);
    for (const [k, v] of Object.entries(this.opts.commands)) {
      if (normalizeCommand(k) === key) return typeof v === 'function' ? v() : v;
    }
    return undefined;
  }

  private caret(column: number): string {
    return `${' '.repeat(Math.max(0, column))}^`;
  }

  private ciscoInvalid(column: number): Reply {
    switch (this.model.family) {
      case 'eos':
        return { lines: ['% Invalid input'] };
      case 'nxos':
        return { lines: [this.caret(column), "% Invalid command at '^' marker.", ''] };
      default:
        return { lines: [this.caret(column), "% Invalid input detected at '^' marker.", ''] };
    }
  }

  private ciscoIncomplete(column: number): Reply {
    if (this.model.family === 'nxos') return { lines: [this.caret(column), "% Incomplete command at '^' marker.", ''] };
    return { lines: [this.model.family === 'eos' ? '% Incomplete command' : '% Incomplete command.', ''] };
  }

  private ciscoAmbiguous(token: string): Reply {
    return { lines: [this.model.family === 'eos' ? '% Ambiguous command' : `% Ambiguous command:  "${token}"`, ''] };
  }

  private ciscoExec(line: string, promptLength: number): Reply {
    const { command, pipes } = splitPipes(line);
    const overridden = this.override(command);
    if (overridden !== undefined) return this.withPipes(overridden, pipes, promptLength, line);
    const tokens = tokenize(command);
    const specs = this.specs.filter((s) => this.ciscoMode !== 'user' || s.priv !== true);
    const res = resolve(tokens, specs);
    const lastEnd = (tokens[tokens.length - 1]?.offset ?? 0) + (tokens[tokens.length - 1]?.text.length ?? 0);
    if (res.kind === 'invalid') return this.ciscoInvalid(promptLength + (tokens[res.at]?.offset ?? 0));
    if (res.kind === 'incomplete') return this.ciscoIncomplete(promptLength + lastEnd);
    if (res.kind === 'ambiguous') return this.ciscoAmbiguous(tokens[res.at]?.text ?? '');
    const out = this.ciscoHandler(res.spec, res.args);
    if (pipes.length === 0 || out.ask !== undefined) return out;
    return this.withPipes(out.lines.join('\n'), pipes, promptLength, line, out.pageable);
  }

  private withPipes(output: string, pipes: readonly string[], promptLength: number, line: string, pageable = true): Reply {
    let lines = output === '' ? [] : output.split('\n');
    for (const pipe of pipes) {
      const tokens = tokenize(pipe, this.model.family === 'junos');
      const verb = (tokens[0]?.text ?? '').toLowerCase();
      const arg = unquote(
        tokens
          .slice(1)
          .map((t) => t.text)
          .join(' '),
      );
      const at = line.indexOf(pipe);
      const choose = (names: string[]): string | undefined => {
        const hits = names.filter((n) => verb !== '' && n.startsWith(verb));
        return hits.length === 1 ? hits[0] : undefined;
      };
      if (this.model.family === 'junos') {
        const op = choose(['match', 'except', 'count', 'no-more', 'display', 'last']);
        if (op === 'no-more') {
          pageable = false;
          continue;
        }
        if (op === 'display') continue;
        if (op === 'match' || op === 'except') {
          const re = safeRegex(arg);
          lines = lines.filter((l) => re.test(l) === (op === 'match'));
          continue;
        }
        if (op === 'count') {
          lines = [`Count: ${lines.length} lines`];
          continue;
        }
        if (op === 'last') {
          lines = lines.slice(-Number(arg || '10'));
          continue;
        }
        return { lines: [this.caret(promptLength + Math.max(0, at)), 'syntax error, expecting <command>.'] };
      }
      const op = choose(['include', 'exclude', 'begin', 'section', 'count']);
      if (op === undefined || (op !== 'count' && arg === '')) return this.ciscoInvalid(promptLength + Math.max(0, at));
      const re = safeRegex(arg);
      if (op === 'include') lines = lines.filter((l) => re.test(l));
      else if (op === 'exclude') lines = lines.filter((l) => !re.test(l));
      else if (op === 'begin') {
        const first = lines.findIndex((l) => re.test(l));
        lines = first < 0 ? [] : lines.slice(first);
      } else if (op === 'section') {
        const out: string[] = [];
        let inSection = false;
        for (const l of lines) {
          if (!/^\s/.test(l)) inSection = re.test(l);
          if (inSection) out.push(l);
        }
        lines = out;
      } else lines = [`Number of lines which match regexp = ${lines.length}`];
    }
    return { lines, pageable };
  }

  private ciscoHandler(spec: Spec, args: string[]): Reply {
    const model = this.model;
    const family = model.family as Exclude<CliFamily, 'junos'>;
    switch (spec.id) {
      case 'static': {
        const outputs = ciscoShowOutputs(family, model.hostname(), new Date());
        return { lines: (outputs[spec.words.join(' ')] ?? '').split('\n'), pageable: true };
      }
      case 'show-run':
        return { lines: model.renderRunningConfig().split('\n'), pageable: true };
      case 'show-run-if': {
        const name = this.normalizeInterface(args[0] ?? '');
        const node = model.ciscoRunning.find((n) => n.line === `interface ${name ?? ''}`);
        if (node === undefined) return { lines: ["% Invalid input detected at '^' marker.", ''] };
        const indent = family === 'ios' ? ' ' : family === 'nxos' ? '  ' : '   ';
        return {
          lines: ['Building configuration...', '', node.line, ...(node.children ?? []).map((c) => `${indent}${c}`), 'end'],
          pageable: true,
        };
      }
      case 'show-start':
        return { lines: model.renderStartupConfig().split('\n'), pageable: true };
      case 'show-ip-int-brief':
      case 'show-int-brief':
        return { lines: this.ipInterfaceBrief(), pageable: true };
      case 'show-int':
        return { lines: model.interfaces().flatMap((i) => this.interfaceDetail(i)), pageable: true };
      case 'show-int-one': {
        const name = this.normalizeInterface(args[0] ?? '');
        const info = model.interfaces().find((i) => i.name === name);
        return info === undefined ? this.ciscoInvalid(0) : { lines: this.interfaceDetail(info), pageable: true };
      }
      case 'show-users':
        return {
          lines: [
            '    Line       User       Host(s)              Idle       Location',
            `*  2 vty 0     ${this.opts.username.padEnd(10)} idle                 00:00:00 127.0.0.1`,
          ],
        };
      case 'show-privilege':
        return { lines: [`Current privilege level is ${this.ciscoMode === 'user' ? 1 : 15}`] };
      case 'show-hostname':
        return { lines: [`Hostname: ${model.hostname()}`, `FQDN:     ${model.hostname()}.lab.example`] };
      case 'terminal-length': {
        const n = Number(args[0]);
        if (!Number.isInteger(n) || n < 0 || n > 512) return this.ciscoInvalid(0);
        this.pagingLength = n;
        return { lines: family === 'eos' && n === 0 ? ['Pagination disabled.'] : [] };
      }
      case 'terminal-width': {
        const n = Number(args[0]);
        if (!Number.isInteger(n) || n < 0 || n > 32767) return this.ciscoInvalid(0);
        return { lines: family === 'eos' ? [`Width set to ${n} columns.`] : [] };
      }
      case 'terminal-monitor':
        return { lines: [] };
      case 'enable':
        return this.enable();
      case 'disable':
        if (family !== 'nxos') this.ciscoMode = 'user';
        return { lines: [] };
      case 'configure':
        this.ciscoMode = 'config';
        this.sub = undefined;
        return {
          lines:
            family === 'eos'
              ? []
              : [
                  family === 'nxos'
                    ? 'Enter configuration commands, one per line. End with CNTL/Z.'
                    : 'Enter configuration commands, one per line.  End with CNTL/Z.',
                ],
        };
      case 'write':
        model.ciscoStartup = cloneNodes(model.ciscoRunning);
        return { lines: family === 'eos' ? [] : ['Building configuration...', '[OK]'] };
      case 'copy-run-start':
        if (family === 'ios') {
          return {
            lines: [],
            ask: {
              prompt: 'Destination filename [startup-config]? ',
              answer: () => {
                model.ciscoStartup = cloneNodes(model.ciscoRunning);
                return { lines: ['Building configuration...', '[OK]'] };
              },
            },
          };
        }
        model.ciscoStartup = cloneNodes(model.ciscoRunning);
        return {
          lines:
            family === 'eos'
              ? ['Copy completed successfully.']
              : ['[########################################] 100%', 'Copy complete, now saving to disk (please wait)...', 'Copy complete.'],
        };
      case 'ping':
        return {
          lines: [
            'Type escape sequence to abort.',
            `Sending 5, 100-byte ICMP Echos to ${args[0] ?? ''}, timeout is 2 seconds:`,
            '!!!!!',
            'Success rate is 100 percent (5/5), round-trip min/avg/max = 1/1/2 ms',
          ],
        };
      case 'exit':
        return { lines: [], close: true };
      default:
        return this.ciscoInvalid(0);
    }
  }

  private enable(): Reply {
    if (this.ciscoMode !== 'user') return { lines: [] };
    const secret = this.opts.enableSecret;
    if (secret === undefined) {
      this.ciscoMode = 'priv';
      return { lines: [] };
    }
    const attempt = (tries: number): Ask => ({
      prompt: 'Password: ',
      secret: true,
      answer: (text) => {
        if (text === secret) {
          this.ciscoMode = 'priv';
          return { lines: [] };
        }
        if (tries >= 3) return { lines: [this.model.family === 'eos' ? '% Access denied' : '% Bad secrets', ''] };
        return { lines: [], ask: attempt(tries + 1) };
      },
    });
    return { lines: [], ask: attempt(1) };
  }

  private normalizeInterface(raw: string): string | undefined {
    const family = this.model.family as Exclude<CliFamily, 'junos'>;
    const m = /^([A-Za-z-]+)\s*([\d/.:]*)$/.exec(raw.trim());
    if (m === null) return undefined;
    const type = (m[1] ?? '').toLowerCase();
    const hits = INTERFACE_TYPES[family].filter((t) => t.toLowerCase().startsWith(type));
    const full = hits.length === 1 ? hits[0] : hits.find((t) => t.toLowerCase() === type);
    if (full === undefined || ((m[2] ?? '') === '' && full !== 'mgmt')) return undefined;
    return `${full}${m[2] ?? ''}`;
  }

  private ipInterfaceBrief(): string[] {
    const infos = this.model.interfaces();
    if (this.model.family === 'eos') {
      return [
        '                                                                        Address',
        'Interface         IP Address           Status       Protocol         MTU    Owner',
        '----------------- -------------------- ------------ -------------- ------- -------',
        ...infos.map(
          (i) =>
            `${i.name.padEnd(18)}${(i.addresses[0] ?? 'unassigned').padEnd(21)}${(i.shutdown ? 'disabled' : 'up').padEnd(13)}${(i.shutdown ? 'down' : 'up').padEnd(15)}${'1500'.padStart(7)}`,
        ),
      ];
    }
    if (this.model.family === 'nxos') {
      return [
        '--------------------------------------------------------------------------------',
        'Ethernet      VLAN    Type Mode   Status  Reason                   Speed     Port',
        'Interface                                                                    Ch #',
        '--------------------------------------------------------------------------------',
        ...infos.map(
          (i) =>
            `${i.name.replace('Ethernet', 'Eth').padEnd(14)}--      eth  routed ${(i.shutdown ? 'down' : 'up').padEnd(8)}${(i.shutdown ? 'Administratively down' : 'none').padEnd(25)}1000(D) --`,
        ),
      ];
    }
    return [
      'Interface                  IP-Address      OK? Method Status                Protocol',
      ...infos.map((i) => {
        const ip = i.addresses[0]?.split('/')[0] ?? 'unassigned';
        return `${i.name.padEnd(27)}${ip.padEnd(16)}YES ${(ip === 'unassigned' ? 'unset' : 'NVRAM').padEnd(7)}${(i.shutdown ? 'administratively down' : 'up').padEnd(22)}${i.shutdown ? 'down' : 'up'}`;
      }),
    ];
  }

  private interfaceDetail(info: InterfaceInfo): string[] {
    const state = info.shutdown ? 'administratively down' : 'up';
    const proto = info.shutdown ? 'down' : 'up';
    return [
      `${info.name} is ${state}, line protocol is ${proto}`,
      '  Hardware is iGbE, address is 5254.0012.3456 (bia 5254.0012.3456)',
      ...(info.description === undefined ? [] : [`  Description: ${info.description}`]),
      ...info.addresses.map((a) => `  Internet address is ${a}`),
      '  MTU 1500 bytes, BW 1000000 Kbit/sec, DLY 10 usec,',
      '     reliability 255/255, txload 1/255, rxload 1/255',
      '  Encapsulation ARPA, loopback not set',
      '  Keepalive set (10 sec)',
      '  Full Duplex, Auto Speed, link type is auto, media type is RJ45',
      '  ARP type: ARPA, ARP Timeout 04:00:00',
      '  Last input 00:00:01, output 00:00:01, output hang never',
      '  Last clearing of "show interface" counters never',
      '  Input queue: 0/75/0/0 (size/max/drops/flushes); Total output drops: 0',
      '  Queueing strategy: fifo',
      '  Output queue: 0/40 (size/max)',
      '  5 minute input rate 1000 bits/sec, 1 packets/sec',
      '  5 minute output rate 1000 bits/sec, 1 packets/sec',
      '     12345 packets input, 1234567 bytes, 0 no buffer',
      '     0 input errors, 0 CRC, 0 frame, 0 overrun, 0 ignored',
      '     23456 packets output, 2345678 bytes, 0 underruns',
      '     0 output errors, 0 collisions, 1 interface resets',
    ];
  }

  private ciscoConfigLine(line: string, promptLength: number): Reply {
    const tokens = tokenize(line);
    const first = (tokens[0]?.text ?? '').toLowerCase();
    const family = this.model.family as Exclude<CliFamily, 'junos'>;
    if (first === 'end') {
      this.ciscoMode = 'priv';
      this.sub = undefined;
      return { lines: [] };
    }
    if (first === 'exit') {
      if (this.sub !== undefined) this.sub = undefined;
      else this.ciscoMode = 'priv';
      return { lines: [] };
    }
    if (first === 'do') {
      const rest = line.slice(tokens[1]?.offset ?? line.length);
      const saved = this.ciscoMode;
      this.ciscoMode = 'priv';
      const out = this.ciscoExec(rest, promptLength + (tokens[1]?.offset ?? 0));
      this.ciscoMode = saved;
      return out;
    }
    if (family !== 'ios' && 'show'.startsWith(first) && first.length >= 2) {
      const saved = this.ciscoMode;
      this.ciscoMode = 'priv';
      const out = this.ciscoExec(line, promptLength);
      this.ciscoMode = saved;
      return out;
    }
    const result = this.applyCisco(tokens);
    this.model.lastChange = new Date();
    switch (result.kind) {
      case 'ok':
        return { lines: [] };
      case 'invalid':
        return this.ciscoInvalid(promptLength + (tokens[result.at]?.offset ?? 0));
      case 'incomplete': {
        const last = tokens[tokens.length - 1];
        return this.ciscoIncomplete(promptLength + (last === undefined ? 0 : last.offset + last.text.length));
      }
      case 'ambiguous':
        return this.ciscoAmbiguous(tokens[result.at]?.text ?? '');
    }
  }

  private expand(word: string, candidates: readonly string[]): { full: string } | { error: 'invalid' | 'ambiguous' } {
    const w = word.toLowerCase();
    if (candidates.includes(w)) return { full: w };
    const hits = candidates.filter((c) => c.startsWith(w));
    if (hits.length === 1 && hits[0] !== undefined) return { full: hits[0] };
    return { error: hits.length === 0 ? 'invalid' : 'ambiguous' };
  }

  private applyCisco(
    tokens: readonly Token[],
  ): { kind: 'ok' } | { kind: 'invalid'; at: number } | { kind: 'incomplete' } | { kind: 'ambiguous'; at: number } {
    const words = tokens.map((t) => t.text);
    const negate = /^(no|default)$/i.test(words[0] ?? '');
    const start = negate ? 1 : 0;
    if (words.length <= start) return { kind: 'incomplete' };
    const family = this.model.family as Exclude<CliFamily, 'junos'>;
    const inInterface = this.sub?.node.line.startsWith('interface ') === true;
    const inSub = this.sub !== undefined;
    const keywordList = inInterface
      ? [...INTERFACE_KEYWORDS, ...GLOBAL_KEYWORDS.filter((k) => !INTERFACE_KEYWORDS.includes(k))]
      : GLOBAL_KEYWORDS;
    const expanded = this.expand(words[start] ?? '', keywordList);
    if ('error' in expanded) {
      // Other sub-modes (router, line, vlan, …) take their own commands; keep them as written.
      if (inSub && !inInterface && expanded.error === 'invalid' && /^[a-z][\w-]*$/i.test(words[start] ?? '')) {
        return this.setChild(words.slice(start).join(' '), negate);
      }
      return { kind: expanded.error, at: start };
    }
    const body = [expanded.full, ...words.slice(start + 1)];
    if (body[0] === 'ip' && body.length > 1) {
      const sub = this.expand(body[1] ?? '', IP_SUBCOMMANDS);
      if ('error' in sub) return { kind: sub.error, at: start + 1 };
      body[1] = sub.full;
    }
    const kw = body[0] ?? '';
    if (!negate && NEEDS_ARGUMENT.has(kw) && body.length === 1) return { kind: 'incomplete' };

    const opener = this.blockOpener(body, family);
    if (opener === 'invalid') return { kind: 'invalid', at: start + 1 };
    if (opener === 'incomplete') return { kind: 'incomplete' };
    if (opener !== undefined) {
      const nodes = this.model.ciscoRunning;
      if (negate) {
        this.model.ciscoRunning = nodes.filter((n) => n.line !== opener.line);
        this.sub = undefined;
        return { kind: 'ok' };
      }
      let node = nodes.find((n) => n.line === opener.line);
      if (node === undefined) {
        node = { line: opener.line, children: [] };
        nodes.push(node);
      }
      this.sub = { node, name: opener.mode };
      return { kind: 'ok' };
    }
    if (!negate && kw === 'ip' && body[1] === 'address' && body[2] !== 'dhcp' && (family === 'ios' ? body.length < 4 : body.length < 3))
      return { kind: 'incomplete' };

    const text = body.join(' ');
    if (inSub) {
      const globalOnly = GLOBAL_KEYWORDS.includes(kw) && !SUBMODE_SHARED.has(kw) && !INTERFACE_KEYWORDS.includes(kw);
      if (!globalOnly) return this.setChild(text, negate);
      // A global command typed in a sub-mode applies globally and leaves the sub-mode, as on IOS.
      this.sub = undefined;
    }
    if (INTERFACE_KEYWORDS.includes(kw) && !GLOBAL_KEYWORDS.includes(kw)) return { kind: 'invalid', at: start };
    if (kw === 'hostname' && negate) return { kind: 'ok' };
    this.setLeaf(text, negate, family);
    return { kind: 'ok' };
  }

  private blockOpener(
    body: readonly string[],
    family: Exclude<CliFamily, 'junos'>,
  ): { line: string; mode: string } | 'invalid' | 'incomplete' | undefined {
    const kw = body[0] ?? '';
    const rest = body.slice(1).join(' ');
    switch (kw) {
      case 'interface': {
        const name = this.normalizeInterface(body.slice(1).join(''));
        if (name === undefined) return 'invalid';
        const abbreviation = `${name.slice(0, 2)}${/[\d/.:]+$/.exec(name)?.[0] ?? ''}`;
        return { line: `interface ${name}`, mode: family === 'eos' ? `config-if-${abbreviation}` : 'config-if' };
      }
      case 'router':
        return rest === '' ? 'incomplete' : { line: `router ${rest}`, mode: 'config-router' };
      case 'line':
        return rest === '' ? 'incomplete' : { line: `line ${rest}`, mode: 'config-line' };
      case 'vlan':
        return /^\d+$/.test(rest) ? { line: `vlan ${rest}`, mode: 'config-vlan' } : 'invalid';
      case 'route-map':
        return rest === '' ? 'incomplete' : { line: `route-map ${rest}`, mode: 'config-route-map' };
      case 'class-map':
        return rest === '' ? 'incomplete' : { line: `class-map ${rest}`, mode: 'config-cmap' };
      case 'policy-map':
        return rest === '' ? 'incomplete' : { line: `policy-map ${rest}`, mode: 'config-pmap' };
      case 'management':
        return rest === '' ? 'incomplete' : { line: `management ${rest}`, mode: 'config-mgmt' };
      case 'vrf':
        return /^(definition|context|instance) \S+/.test(rest) ? { line: `vrf ${rest}`, mode: 'config-vrf' } : undefined;
      case 'key':
        return /^chain \S+/.test(rest) ? { line: `key ${rest}`, mode: 'config-keychain' } : undefined;
      case 'ip': {
        const m = /^access-list (extended|standard) (\S+)$/.exec(rest);
        return m === null ? undefined : { line: `ip ${rest}`, mode: m[1] === 'extended' ? 'config-ext-nacl' : 'config-std-nacl' };
      }
      default:
        return undefined;
    }
  }

  private setChild(text: string, negate: boolean): { kind: 'ok' } {
    const node = this.sub?.node;
    if (node === undefined) return { kind: 'ok' };
    const family = this.model.family as Exclude<CliFamily, 'junos'>;
    node.children = applyLeaf(node.children ?? [], text, negate, SHOWN_NEGATIONS[family]);
    return { kind: 'ok' };
  }

  private setLeaf(text: string, negate: boolean, family: Exclude<CliFamily, 'junos'>): void {
    const nodes = this.model.ciscoRunning;
    const key = leafKey(text);
    const matches = (n: ConfigNode): boolean =>
      n.children === undefined && (leafKey(n.line) === key || n.line === text || (negate && n.line.startsWith(`${text} `)));
    // Replace in place where the same setting was, so `hostname` stays near the top.
    const at = nodes.findIndex(matches);
    const result = nodes.filter((n) => !matches(n));
    const line = negate ? (SHOWN_NEGATIONS[family].includes(key) ? `no ${key}` : undefined) : text;
    if (line !== undefined) {
      const insertAt = at < 0 ? result.length : nodes.slice(0, at).filter((n) => !matches(n)).length;
      result.splice(insertAt, 0, { line });
    }
    this.model.ciscoRunning = result;
  }

  // --- Junos --------------------------------------------------------------------------------------

  private junosShellLine(line: string): Reply {
    const command = line.trim().split(/\s+/)[0] ?? '';
    if (command === 'cli') {
      this.junosShell = false;
      return { lines: [] };
    }
    if (command === 'exit' || command === 'logout') return { lines: [], close: true };
    return { lines: [`${command}: Command not found.`] };
  }

  private junosSyntaxError(column: number, message: string): Reply {
    return { lines: [this.caret(column), message] };
  }

  private junosOp(line: string, promptLength: number): Reply {
    const { command, pipes } = splitPipes(line);
    const overridden = this.override(command);
    if (overridden !== undefined) return this.withPipes(overridden, pipes, promptLength, line);
    const tokens = tokenize(command, true);
    const res = resolve(tokens, this.specs);
    if (res.kind === 'invalid') {
      return this.junosSyntaxError(
        promptLength + (tokens[res.at]?.offset ?? 0),
        res.at === 0 ? 'unknown command.' : 'syntax error, expecting <command>.',
      );
    }
    if (res.kind === 'incomplete') {
      const last = tokens[tokens.length - 1];
      return this.junosSyntaxError(
        promptLength + (last === undefined ? 0 : last.offset + last.text.length + 1),
        'syntax error, expecting <command>.',
      );
    }
    if (res.kind === 'ambiguous') return { lines: [`'${tokens[res.at]?.text ?? ''}' is ambiguous.`] };
    const displaySet = pipes.findIndex((p) => /^disp\w* set\s*$/i.test(p.trim()));
    if (displaySet >= 0 && (res.spec.id === 'show-config' || res.spec.id === 'show-config-path')) {
      const prefix = junosTokens(res.args[0] ?? '').join(' ');
      const statements = this.model.junosRunning.filter((s) => prefix === '' || s === prefix || s.startsWith(`${prefix} `));
      const rest = pipes.filter((_p, i) => i !== displaySet);
      return this.withPipes(statements.map((s) => `set ${s}`).join('\n'), rest, promptLength, line);
    }
    const out = this.junosOpHandler(res.spec, res.args);
    if (pipes.length === 0) return out;
    return this.withPipes(out.lines.join('\n'), pipes, promptLength, line, out.pageable);
  }

  private junosOpHandler(spec: Spec, args: string[]): Reply {
    const model = this.model;
    switch (spec.id) {
      case 'static':
        return { lines: (junosShowOutputs(model.hostname(), new Date())[spec.words.join(' ')] ?? '').split('\n'), pageable: true };
      case 'show-config':
        return { lines: renderJunosConfig(model.junosRunning).split('\n'), pageable: true };
      case 'show-config-path': {
        const prefix = junosTokens(args[0] ?? '').join(' ');
        const subset = model.junosRunning
          .filter((s) => s === prefix || s.startsWith(`${prefix} `))
          .map((s) => s.slice(prefix.length).trim());
        return { lines: renderJunosConfig(subset.filter((s) => s !== '')).split('\n'), pageable: true };
      }
      case 'show-int-terse':
        return { lines: this.junosTerse(), pageable: true };
      case 'show-int':
        return { lines: model.interfaces().flatMap((i) => this.junosInterfaceDetail(i)), pageable: true };
      case 'show-int-one': {
        const info = model.interfaces().find((i) => i.name === args[0]);
        return info === undefined
          ? { lines: [`error: device ${args[0] ?? ''} not found`] }
          : { lines: this.junosInterfaceDetail(info), pageable: true };
      }
      case 'cli-screen-length': {
        const n = Number(args[0]);
        if (!Number.isInteger(n) || n < 0) return { lines: ['error: invalid value'] };
        this.pagingLength = n;
        return { lines: [`Screen length set to ${n}`] };
      }
      case 'cli-screen-width':
        return { lines: [`Screen width set to ${args[0] ?? ''}`] };
      case 'cli-complete-on-space':
        return { lines: [args[0] === 'off' ? 'Disabling complete-on-space' : 'Enabling complete-on-space'] };
      case 'configure':
        this.junosConfig = true;
        this.editPath = [];
        return { lines: ['Entering configuration mode'] };
      case 'exit':
        return { lines: [], close: true };
      default:
        return { lines: ['unknown command.'] };
    }
  }

  private junosTerse(): string[] {
    const lines = ['Interface               Admin Link Proto    Local                 Remote'];
    for (const i of this.model.interfaces()) {
      const admin = i.shutdown ? 'down' : 'up';
      lines.push(`${i.name.padEnd(24)}${admin.padEnd(6)}${admin}`);
      const units = new Map<string, string[]>();
      for (const a of i.addresses) {
        const [address, unit] = a.split('@');
        units.set(unit ?? '0', [...(units.get(unit ?? '0') ?? []), address ?? '']);
      }
      for (const [unit, addresses] of units) {
        lines.push(`${`${i.name}.${unit}`.padEnd(24)}${admin.padEnd(6)}${admin.padEnd(5)}inet     ${addresses[0] ?? ''}`);
        for (const extra of addresses.slice(1)) lines.push(`${''.padEnd(44)}${extra}`);
      }
    }
    return lines;
  }

  private junosInterfaceDetail(info: InterfaceInfo): string[] {
    const state = info.shutdown ? 'Disabled' : 'Enabled';
    return [
      `Physical interface: ${info.name}, ${state}, Physical link is ${info.shutdown ? 'Down' : 'Up'}`,
      '  Interface index: 148, SNMP ifIndex: 526',
      ...(info.description === undefined ? [] : [`  Description: ${info.description}`]),
      '  Link-level type: Ethernet, MTU: 1514, Link-mode: Full-duplex, Speed: 1000mbps,',
      '  BPDU Error: None, Loop Detect PDU Error: None, MAC-REWRITE Error: None, Loopback: Disabled,',
      '  Source filtering: Disabled, Flow control: Enabled',
      '  Device flags   : Present Running',
      '  Interface flags: SNMP-Traps Internal: 0x4000',
      '  Link flags     : None',
      '  Current address: 52:54:00:12:34:56, Hardware address: 52:54:00:12:34:56',
      '  Last flapped   : 2024-01-01 00:00:00 UTC (1w2d 03:04 ago)',
      '  Input rate     : 1000 bps (1 pps)',
      '  Output rate    : 1000 bps (1 pps)',
      ...info.addresses.map((a) => `    Logical interface ${info.name}.${a.split('@')[1] ?? '0'}  Local: ${a.split('@')[0] ?? ''}`),
      '',
    ];
  }

  private junosConfigLine(line: string, promptLength: number): Reply {
    const { command, pipes } = splitPipes(line);
    const tokens = tokenize(command, true);
    const verbToken = tokens[0];
    const expanded = this.expand(verbToken?.text ?? '', JUNOS_CONFIG_VERBS);
    if ('error' in expanded) {
      if (expanded.error === 'ambiguous') return { lines: [`'${verbToken?.text ?? ''}' is ambiguous.`] };
      return this.junosSyntaxError(promptLength + (verbToken?.offset ?? 0), 'unknown command.');
    }
    const words = tokens.slice(1).map((t) => t.text);
    const model = this.model;
    switch (expanded.full) {
      case 'set': {
        if (words.length === 0)
          return this.junosSyntaxError(promptLength + line.length + 1, 'syntax error, expecting <statement> or <identifier>.');
        const first = words[0] ?? '';
        if (this.editPath.length === 0 && !JUNOS_TOP_LEVEL.has(first))
          return this.junosSyntaxError(promptLength + (tokens[1]?.offset ?? 0), 'syntax error.');
        const statementTokens = [...this.editPath, ...words];
        const statement = statementTokens.join(' ');
        const n = statementTokens.length;
        const key = statementTokens[n - 2];
        if (key !== undefined && JUNOS_SINGLE_VALUED.has(key)) {
          const prefix = `${statementTokens.slice(0, n - 1).join(' ')} `;
          model.junosCandidate = model.junosCandidate.filter((s) => !s.startsWith(prefix));
        }
        if (!model.junosCandidate.includes(statement)) model.junosCandidate.push(statement);
        return { lines: [] };
      }
      case 'delete': {
        const statement = [...this.editPath, ...words].join(' ');
        const before = model.junosCandidate.length;
        model.junosCandidate =
          statement === '' ? [] : model.junosCandidate.filter((s) => s !== statement && !s.startsWith(`${statement} `));
        return { lines: model.junosCandidate.length === before ? ['warning: statement not found'] : [] };
      }
      case 'show': {
        if (pipes.some((p) => /^compare/.test(p.trim()))) return { lines: this.junosCompare(), pageable: true };
        const prefix = [...this.editPath, ...words].join(' ');
        const subset =
          prefix === ''
            ? model.junosCandidate
            : model.junosCandidate.filter((s) => s === prefix || s.startsWith(`${prefix} `)).map((s) => s.slice(prefix.length).trim());
        if (pipes.some((p) => /^display set/.test(p.trim())))
          return { lines: subset.map((s) => `set ${prefix === '' ? '' : `${prefix} `}${s}`), pageable: true };
        return { lines: renderJunosConfig(subset.filter((s) => s !== '')).split('\n'), pageable: true };
      }
      case 'commit': {
        const mode = (words[0] ?? '').toLowerCase();
        if (mode === 'check') return { lines: ['configuration check succeeds'] };
        model.junosRunning = [...model.junosCandidate];
        model.lastChange = new Date();
        if (mode === 'and-quit') {
          this.junosConfig = false;
          this.editPath = [];
          return { lines: ['commit complete', 'Exiting configuration mode'] };
        }
        return { lines: ['commit complete'] };
      }
      case 'rollback':
        model.junosCandidate = [...model.junosRunning];
        return { lines: ['load complete'] };
      case 'top':
        this.editPath = [];
        return { lines: [] };
      case 'up':
        this.editPath = this.editPath.slice(0, -1);
        return { lines: [] };
      case 'edit':
        this.editPath = [...this.editPath, ...words];
        return { lines: [] };
      case 'run': {
        this.junosConfig = false;
        const out = this.junosOp(line.slice(tokens[1]?.offset ?? line.length), promptLength + (tokens[1]?.offset ?? 0));
        this.junosConfig = true;
        return out;
      }
      case 'status':
        return {
          lines: [
            'Users currently editing the configuration:',
            `  ${this.opts.username} terminal p0 (pid 1234) on since 2024-01-01 00:00:00 UTC`,
            '      [edit]',
          ],
        };
      case 'exit':
      case 'quit': {
        const leaveAll = (words[0] ?? '').toLowerCase() === 'configuration-mode';
        if (!leaveAll && this.editPath.length > 0) {
          this.editPath = this.editPath.slice(0, -1);
          return { lines: [] };
        }
        const leave = (): Reply => {
          this.junosConfig = false;
          this.editPath = [];
          return { lines: ['Exiting configuration mode'] };
        };
        if (model.junosCandidate.join('\n') === model.junosRunning.join('\n')) return leave();
        return {
          lines: ['The configuration has been changed but not committed'],
          ask: {
            prompt: 'Exit with uncommitted changes? [yes,no] (yes) ',
            answer: (text) => (/^(|y|yes)$/i.test(text.trim()) ? leave() : { lines: [] }),
          },
        };
      }
      default:
        return this.junosSyntaxError(promptLength, 'unknown command.');
    }
  }

  private junosCompare(): string[] {
    const running = new Set(this.model.junosRunning);
    const candidate = new Set(this.model.junosCandidate);
    const removed = this.model.junosRunning.filter((s) => !candidate.has(s)).map((s) => `- set ${s}`);
    const added = this.model.junosCandidate.filter((s) => !running.has(s)).map((s) => `+ set ${s}`);
    return [...removed, ...added];
  }
}

function applyLeaf(lines: readonly string[], text: string, negate: boolean, shownNegations: readonly string[]): string[] {
  const key = leafKey(text);
  const kept = lines.filter((l) => leafKey(l) !== key && l !== text && !(negate && l.startsWith(`${text} `)));
  if (!negate) return [...kept, text];
  return shownNegations.includes(key) ? [...kept, `no ${key}`] : kept;
}

function safeRegex(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  }
}
