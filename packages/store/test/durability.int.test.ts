/**
 * Every acknowledged write of the embedded store survives `kill -9`: a child process writes and
 * prints each acknowledged write, the parent kills it mid-stream with SIGKILL, reopens the store
 * and finds every acknowledged write.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStore } from '../src/index';

const DIST = join(__dirname, '..', 'dist', 'index.js');
const CHILD = join(__dirname, 'durability-child.js');
const BUILD_HINT = 'run `npm run build` at the repository root (or `npm run build -w @nap/store`)';

interface ChildRun {
  docs: string[];
  lastIncrement: number;
  stderr: string;
  exit: { code: number | null; signal: NodeJS.Signals | null };
}

/** Runs the writer until it has acknowledged `docTarget` documents, then SIGKILLs it. */
function runAndKill(path: string, docTarget: number): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    const run: ChildRun = { docs: [], lastIncrement: 0, stderr: '', exit: { code: null, signal: null } };
    let pending = '';
    let killed = false;
    const kill = () => {
      if (!killed) {
        killed = true;
        child.kill('SIGKILL');
      }
    };
    const deadline = setTimeout(kill, 20_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const [kind, value] = line.split(' ');
        if (kind === 'doc' && value) run.docs.push(value);
        if (kind === 'inc') run.lastIncrement = Math.max(run.lastIncrement, Number(value));
      }
      if (run.docs.length >= docTarget) kill();
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      run.stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      run.exit = { code, signal };
      resolve(run);
    });
  });
}

describe('EmbeddedStore durability', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'nap-store-kill9-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write after the writer is killed with SIGKILL', async () => {
    if (!existsSync(DIST)) {
      throw new Error(`The kill -9 test runs the compiled package, and ${DIST} is missing: ${BUILD_HINT}.`);
    }
    const path = join(dir, 'store');
    const run = await runAndKill(path, 400);
    if (run.exit.signal !== 'SIGKILL') {
      const hint = /Cannot find module/.test(run.stderr) ? ` A module is missing: ${BUILD_HINT}.` : '';
      throw new Error(`The writer exited by itself (code ${String(run.exit.code)}) instead of being killed.${hint}\n${run.stderr}`);
    }
    expect(run.docs.length).toBeGreaterThanOrEqual(400);

    const store = createEmbeddedStore({ path });
    try {
      const docs = store.collection('docs');
      const acknowledged = new Set(run.docs);
      const found = await docs.find({ _id: { $in: [...acknowledged] } }, { projection: { _id: 1 } });
      expect(found.length).toBe(acknowledged.size);
      // The unique index was written in the same transactions as the documents.
      const seqs = run.docs.map((id) => Number(id.slice(1)));
      expect(await docs.countDocuments({ seq: { $in: seqs } })).toBe(acknowledged.size);
      expect(await docs.countDocuments({})).toBeGreaterThanOrEqual(acknowledged.size);
      const counter = await store.collection('counters').findOne({ _id: 'writes' });
      expect(counter?.n).toBeGreaterThanOrEqual(run.lastIncrement);
      // The store is healthy after the crash: it takes writes and still enforces the index.
      await expect(docs.insertOne({ _id: run.docs[0] as string, seq: -1 })).rejects.toMatchObject({ code: 'STORE_DUPLICATE_KEY' });
      await expect(docs.insertOne({ seq: seqs[0] })).rejects.toMatchObject({ code: 'STORE_DUPLICATE_KEY' });
      await docs.insertOne({ _id: 'after-crash', seq: -2 });
      expect(await docs.findOne({ seq: -2 })).toMatchObject({ _id: 'after-crash' });
    } finally {
      await store.close();
    }
  });
});
