/**
 * MongoStore: the shared contract suite against a real MongoDB, from NAP_MONGO_URL or, when a
 * Docker engine answers, a testcontainers MongoDB. With neither, the suite does not run and says
 * so loudly; the tests that need no server always run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { MongoDBContainer } from '@testcontainers/mongodb';
import { MongoClient, MongoServerError } from 'mongodb';
import { createMongoStore, type Store } from '../src/index';
import { runStoreContractSuite, type StoreSuiteTarget } from './contract-suite';
import { translateMongoError } from '../src/internal/mongo/translate-error';

type MongoSource = { kind: 'url'; url: string } | { kind: 'docker'; endpoint: string } | { kind: 'none'; reason: string };

/** Where a Docker engine would answer: DOCKER_HOST, else the usual sockets. */
function dockerEndpoints(): string[] {
  if (process.env.DOCKER_HOST) return [process.env.DOCKER_HOST];
  const sockets = ['/var/run/docker.sock', join(homedir(), '.docker', 'run', 'docker.sock')];
  if (process.env.XDG_RUNTIME_DIR) sockets.push(join(process.env.XDG_RUNTIME_DIR, 'docker.sock'));
  return sockets.filter((s) => existsSync(s)).map((s) => `unix://${s}`);
}

/** Asks the engine's `/_ping` from a child process, so this synchronous check is bounded (2 s). */
function dockerAnswers(endpoint: string): boolean {
  const target = endpoint.startsWith('unix://')
    ? { socketPath: endpoint.slice('unix://'.length) }
    : (() => {
        const url = new URL(endpoint.replace(/^tcp:/, 'http:'));
        return { host: url.hostname, port: Number(url.port || 2375) };
      })();
  const script = `require('node:http').get({ ...${JSON.stringify(target)}, path: '/_ping', timeout: 1500 }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1)).on('timeout', () => process.exit(1));`;
  const result = spawnSync(process.execPath, ['-e', script], { timeout: 2000, stdio: 'ignore' });
  return result.status === 0;
}

function findMongo(): MongoSource {
  const url = process.env.NAP_MONGO_URL;
  if (url) return { kind: 'url', url };
  const endpoints = dockerEndpoints();
  const answering = endpoints.find(dockerAnswers);
  if (answering) return { kind: 'docker', endpoint: answering };
  const checked = endpoints.length > 0 ? endpoints.join(', ') : 'DOCKER_HOST unset and no Docker socket found';
  return {
    kind: 'none',
    reason: `NAP_MONGO_URL is not set and no Docker engine answered (${checked}). Set NAP_MONGO_URL=mongodb://host:27017 or start Docker to run it.`,
  };
}

const source = findMongo();

function mongoTarget(url: string, cleanup: () => Promise<void> = async () => undefined): StoreSuiteTarget {
  const dbNames = new WeakMap<Store, string>();
  const created: string[] = [];
  const open = async (dbName: string): Promise<Store> => {
    const store = createMongoStore({ url, dbName, serverSelectionTimeoutMs: 5_000 });
    dbNames.set(store, dbName);
    return store;
  };
  return {
    open: async () => {
      const dbName = `nap_store_test_${process.pid}_${created.length}_${Math.random().toString(36).slice(2, 8)}`;
      created.push(dbName);
      return open(dbName);
    },
    reopen: async (store) => open(dbNames.get(store) as string),
    dispose: async () => {
      const client = new MongoClient(url, { serverSelectionTimeoutMS: 5_000 });
      try {
        for (const name of created) await client.db(name).dropDatabase();
      } finally {
        await client.close();
        await cleanup();
      }
    },
  };
}

if (source.kind === 'url') {
  runStoreContractSuite('MongoStore contract (NAP_MONGO_URL)', async () => mongoTarget(source.url));
} else if (source.kind === 'docker') {
  runStoreContractSuite(
    `MongoStore contract (testcontainers at ${source.endpoint})`,
    async () => {
      let module: { MongoDBContainer: typeof MongoDBContainer };
      try {
        module = await import('@testcontainers/mongodb');
      } catch (e) {
        throw new Error(
          `A Docker engine answers at ${source.endpoint} but @testcontainers/mongodb cannot load (${e instanceof Error ? e.message : String(e)}); ` +
            `testcontainers 12 needs Node >= 22.22 (this is ${process.version}). Upgrade Node, or set NAP_MONGO_URL to an existing MongoDB.`,
          { cause: e },
        );
      }
      const container = await new module.MongoDBContainer('mongo:8').start();
      const base = container.getConnectionString();
      const url = base.includes('?') ? `${base}&directConnection=true` : `${base}/?directConnection=true`;
      return mongoTarget(url, async () => {
        await container.stop();
      });
    },
    { setupTimeoutMs: 300_000 },
  );
} else {
  describe('MongoStore contract — NOT RUN', () => {
    beforeAll(() => {
      const line = '!'.repeat(100);
      console.warn(
        `${line}\n!! The MongoStore contract suite did NOT run: only EmbeddedStore was checked against the Store contract.\n!! ${source.reason}\n${line}`,
      );
    });

    it('records why the MongoStore contract suite did not run', () => {
      expect(source.reason).toMatch(/NAP_MONGO_URL/);
    });
  });
}

describe('MongoStore without a server', () => {
  async function unusedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return address.port;
  }

  it('answers STORE_UNAVAILABLE when MongoDB cannot be reached, without the connection string in the message', async () => {
    const port = await unusedPort();
    const store = createMongoStore({
      url: `mongodb://netops:s3cret-pw@127.0.0.1:${port}/admin`,
      dbName: 'nap_test',
      serverSelectionTimeoutMs: 300,
    });
    expect(store.kind).toBe('mongo');
    const failure = store.ping();
    await expect(failure).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 });
    await expect(store.collection('items').insertOne({ v: 1 })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    const message = await failure.catch((e: Error) => e.message);
    expect(message).not.toContain('s3cret-pw');
    await store.close();
  });

  it('translates driver errors at the edge', () => {
    const duplicate = new MongoServerError({
      message: 'E11000 duplicate key error collection: nap.users index: email_1 dup key: { email: "a@example.com" }',
      errmsg: 'E11000 duplicate key error collection: nap.users index: email_1 dup key: { email: "a@example.com" }',
      code: 11000,
      keyValue: { email: 'a@example.com' },
    });
    expect(translateMongoError(duplicate, 'users')).toMatchObject({
      code: 'STORE_DUPLICATE_KEY',
      status: 409,
      details: { index: 'email_1', key: { email: 'a@example.com' } },
    });
    expect(translateMongoError(new MongoServerError({ message: 'Unknown modifier: $nope', code: 9 }), 'users')).toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(translateMongoError(new MongoServerError({ message: 'not primary', code: 10107 }), 'users')).toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    expect(translateMongoError(new MongoServerError({ message: 'conflict', code: 85 }), 'users')).toMatchObject({ code: 'CONFLICT' });
  });
});
