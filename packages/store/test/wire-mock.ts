/**
 * A MongoDB server for tests, on the wire: `mongodb-mock-server`, the mock the driver's own tests
 * grew up with. It answers the handshake as the primary of a one-member replica set `rs0`
 * (MongoDB 7's wire version), records every command the driver sends, and replies to each with
 * what the test scripts, so that a test asserts the exact commands and options NAP sends and NAP's
 * reaction to replies no real server gives on demand (a write-concern failure, a step-down, a lost
 * cursor).
 *
 * The mock speaks the legacy OP_QUERY/OP_REPLY framing; the driver (7.x) talks to it that way
 * because the handshake says `__nodejs_mock_server__` (its own test hook). The command documents
 * are those it sends a real server in OP_MSG.
 */
import { Long } from 'mongodb';

interface MockRequest {
  readonly document: Record<string, unknown>;
  /** The parsed message: its namespace `<db>.$cmd` names the database of a command. */
  readonly response?: { ns?: string };
  reply(doc: Record<string, unknown>): void;
}

interface MockServerInstance {
  uri(): string;
  setMessageHandler(handler: (request: MockRequest) => void): void;
  destroy(): Promise<void>;
}

interface MockServerModule {
  createServer(port: number, host: string): Promise<MockServerInstance>;
  DEFAULT_ISMASTER_36: Record<string, unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS package without types
const mockServer = require('mongodb-mock-server') as MockServerModule;

/** Commands of the connection handshake and of sessions, which tests do not look at. */
const PLUMBING = new Set(['ismaster', 'isMaster', 'hello', 'endSessions', 'saslStart', 'saslContinue']);

/** What a scripted reply does: answer now, or hold the reply (a server that does not answer). */
export type Reply = Record<string, unknown> | 'hold';

/** Answers one command; undefined leaves it to the default answers. */
export type Script = (command: Record<string, unknown>) => Reply | undefined;

export interface WireMock {
  /** `mongodb://host:port/?replicaSet=rs0`. */
  url: string;
  /** The commands received, in order, handshake and session plumbing left out. */
  commands: Record<string, unknown>[];
  /** The commands named `name` (`find`, `insert`, `update`, `findAndModify`, …). */
  sent(name: string): Record<string, unknown>[];
  /** Handshakes that opened a connection (they carry the driver's `client` metadata). */
  handshakes(): number;
  /** Adds a scripted answer, tried before those added earlier; one that returns undefined leaves the command to the others and the defaults. */
  script(fn: Script): void;
  /** Answers every held command with `{ ok: 1 }` (so clients can close). */
  releaseHeld(): void;
  close(): Promise<void>;
}

/** An empty cursor reply, or one with `firstBatch` and a cursor id (non-zero: more to come). */
export function cursorReply(ns: string, firstBatch: unknown[], id = 0): Record<string, unknown> {
  return { ok: 1, cursor: { id: Long.fromNumber(id), ns, firstBatch } };
}

function commandName(doc: Record<string, unknown>): string {
  return Object.keys(doc)[0] ?? '';
}

/**
 * The command as a server reads it: over OP_QUERY the driver sends a bulk write's documents as the
 * object it would have framed as an OP_MSG document sequence (`{ field, documents, … }`), and the
 * database only in the namespace; both are put back where OP_MSG has them.
 */
function asServerSees(request: MockRequest): Record<string, unknown> {
  const doc: Record<string, unknown> = { ...request.document };
  for (const [key, value] of Object.entries(doc)) {
    const sequence = value as { field?: unknown; documents?: unknown } | null;
    if (typeof sequence === 'object' && sequence !== null && sequence.field === key && Array.isArray(sequence.documents))
      doc[key] = sequence.documents;
  }
  const db = request.response?.ns?.split('.')[0];
  if (doc.$db === undefined && db !== undefined) doc.$db = db;
  return doc;
}

function defaultReply(doc: Record<string, unknown>): Record<string, unknown> {
  const name = commandName(doc);
  const ns = `${String(doc.$db ?? 'db')}.${String(doc[name])}`;
  switch (name) {
    case 'insert':
      return { ok: 1, n: Array.isArray(doc.documents) ? doc.documents.length : 0 };
    case 'update':
      return { ok: 1, n: 1, nModified: 1 };
    case 'delete':
      return { ok: 1, n: 1 };
    case 'findAndModify':
      return { ok: 1, value: null, lastErrorObject: { n: 0, updatedExisting: false } };
    case 'find':
    case 'listIndexes':
    case 'listCollections':
      return cursorReply(ns, []);
    case 'aggregate':
      return cursorReply(ns, [{ _id: 1, n: 0 }]);
    case 'getMore':
      return { ok: 1, cursor: { id: Long.fromNumber(0), ns, nextBatch: [] } };
    case 'killCursors':
      return { ok: 1, cursorsKilled: [], cursorsNotFound: [], cursorsAlive: [], cursorsUnknown: [] };
    default:
      return { ok: 1 };
  }
}

/** Starts a mock primary of `rs0` on a free port of 127.0.0.1. */
export async function startWireMock(): Promise<WireMock> {
  const server = await mockServer.createServer(0, '127.0.0.1');
  const uri = server.uri();
  const commands: Record<string, unknown>[] = [];
  const scripts: Script[] = [];
  const held: MockRequest[] = [];
  let handshakes = 0;
  const hello = {
    ...mockServer.DEFAULT_ISMASTER_36,
    ismaster: true,
    isWritablePrimary: true,
    secondary: false,
    setName: 'rs0',
    setVersion: 1,
    hosts: [uri],
    me: uri,
    minWireVersion: 0,
    maxWireVersion: 21,
    logicalSessionTimeoutMinutes: 30,
    saslSupportedMechs: ['SCRAM-SHA-256'],
  };
  server.setMessageHandler((request) => {
    const doc = asServerSees(request);
    const name = commandName(doc);
    if (name === 'ismaster' || name === 'isMaster' || name === 'hello') {
      if (doc.client !== undefined) handshakes += 1;
      request.reply({ ...hello, localTime: new Date() });
      return;
    }
    if (!PLUMBING.has(name)) commands.push(doc);
    for (const script of [...scripts].reverse()) {
      const answer = script(doc);
      if (answer === undefined) continue;
      if (answer === 'hold') held.push(request);
      else request.reply(answer);
      return;
    }
    request.reply(defaultReply(doc));
  });
  return {
    url: `mongodb://${uri}/?replicaSet=rs0`,
    commands,
    sent: (name) => commands.filter((c) => commandName(c) === name),
    handshakes: () => handshakes,
    script: (fn) => {
      scripts.push(fn);
    },
    releaseHeld: () => {
      for (const request of held.splice(0)) request.reply({ ok: 1 });
    },
    close: async () => {
      for (const request of held.splice(0)) request.reply({ ok: 1 });
      await server.destroy();
    },
  };
}

/** A script answering the first `times` commands named `name` with `reply`, then leaving them to others. */
export function answerOnce(name: string, reply: Reply, times = 1): Script {
  let left = times;
  return (command) => {
    if (commandName(command) !== name || left <= 0) return undefined;
    left -= 1;
    return reply;
  };
}
