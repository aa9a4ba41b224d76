/**
 * Scenario 5: 500 idle or slow connections held open against the gateway (slowloris): connections
 * that send nothing, that send their headers a line at a time, and that send a body a byte at a
 * time. Meanwhile other clients keep being answered. Printed: their answer times against a baseline
 * measured before, and what the server did with the slow connections (closed after its header and
 * request timeouts, or still open at the end).
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { sleep } from '@nap/util';
import { figure, quantile } from './support/figures';
import { Standalone, dataDirectory, progress } from './support/platform';

const SCENARIO = '5 gateway under 500 slow connections';
const IDLE = 250;
const SLOW_HEADERS = 150;
const SLOW_BODIES = 100;
const TRICKLE_MS = 2_000;
const ATTACK_MS = 25_000;
const PROBE_EVERY_MS = 100;
/** A probe answered later than this is counted as held (no operation of the probes takes longer). */
const PROBE_TIMEOUT_MS = 10_000;

interface Probe {
  route: string;
  status: number;
  ms: number;
  error?: string;
}

interface Slow {
  kind: 'idle' | 'headers' | 'body';
  socket: Socket;
  openedAt: number;
  closedAt?: number;
  answer?: string;
  timer?: NodeJS.Timeout;
}

const data = dataDirectory('slow');
let platform: Standalone;
const slow: Slow[] = [];

afterAll(async () => {
  for (const s of slow) {
    if (s.timer) clearInterval(s.timer);
    s.socket.destroy();
  }
  await platform?.stop();
  data.remove();
});

function open(kind: Slow['kind'], port: number): Promise<Slow> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const entry: Slow = { kind, socket, openedAt: Date.now() };
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      // a reset by the server later is a close, seen below
      socket.on('error', () => undefined);
      let n = 0;
      if (kind === 'headers') {
        socket.write('GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        entry.timer = setInterval(() => socket.write(`X-Slow-${(n += 1)}: y\r\n`), TRICKLE_MS);
      } else if (kind === 'body') {
        socket.write('POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
        entry.timer = setInterval(() => socket.write(n++ === 0 ? '{' : ' '), TRICKLE_MS);
      }
      resolve(entry);
    });
    socket.on('data', (chunk: Buffer) => {
      entry.answer ??= chunk.toString('latin1').split('\r\n')[0];
    });
    socket.once('close', () => {
      entry.closedAt = Date.now();
      if (entry.timer) clearInterval(entry.timer);
    });
  });
}

async function probe(platform: Standalone, until: number): Promise<Probe[]> {
  const out: Probe[] = [];
  for (let n = 0; Date.now() < until; n += 1) {
    const route = n % 2 === 0 ? '/health/live' : '/whoami';
    const res = await platform.client.request('GET', route, undefined, { timeoutMs: PROBE_TIMEOUT_MS });
    out.push({ route, status: res.status, ms: res.ms, ...(res.error ? { error: res.error } : {}) });
    // a steady trickle of probes is the measurement
    await sleep(PROBE_EVERY_MS);
  }
  return out;
}

const summary = (probes: Probe[]) => {
  const ms = probes.map((p) => p.ms);
  return `${quantile(ms, 0.5).toFixed(1)} / ${quantile(ms, 0.99).toFixed(1)} ms`;
};

it('keeps answering other clients while 500 connections are held open', async () => {
  platform = await Standalone.start(data.dir);
  const baseline = await probe(platform, Date.now() + 3_000);

  const attackStart = Date.now();
  const kinds: Slow['kind'][] = [
    ...Array<Slow['kind']>(IDLE).fill('idle'),
    ...Array<Slow['kind']>(SLOW_HEADERS).fill('headers'),
    ...Array<Slow['kind']>(SLOW_BODIES).fill('body'),
  ];
  const opened = await Promise.allSettled(kinds.map((kind) => open(kind, platform.port)));
  for (const o of opened) if (o.status === 'fulfilled') slow.push(o.value);
  progress(`scenario 5: ${slow.length} of ${kinds.length} slow connections open`);
  const during = await probe(platform, attackStart + ATTACK_MS);
  const openAtEnd = slow.filter((s) => s.closedAt === undefined).length;

  const failed = [...baseline, ...during].filter((p) => p.status !== 200);
  const closeTimes = (kind: Slow['kind']) =>
    slow.filter((s) => s.kind === kind && s.closedAt !== undefined).map((s) => (s.closedAt as number) - s.openedAt);
  const closed = (kind: Slow['kind']) => {
    const times = closeTimes(kind);
    const answers = [...new Set(slow.filter((s) => s.kind === kind && s.answer).map((s) => s.answer))].join(', ');
    return times.length === 0
      ? `0 of ${slow.filter((s) => s.kind === kind).length}`
      : `${times.length}, after ${quantile(times, 0.5).toFixed(0)} ms (p50)${answers ? `, answered ${answers}` : ''}`;
  };

  figure(SCENARIO, 'slow connections opened', slow.length);
  figure(SCENARIO, 'other clients before, p50/p99', summary(baseline));
  figure(SCENARIO, 'other clients during, p50/p99', summary(during), '', 'answered, close to before');
  figure(SCENARIO, 'other clients failed or held', failed.length, '', '0');
  figure(SCENARIO, 'idle connections closed by the server', closed('idle'), '', 'closed after a timeout');
  figure(SCENARIO, 'slow-header connections closed by the server', closed('headers'), '', 'closed after the header timeout');
  figure(SCENARIO, 'slow-body connections closed by the server', closed('body'), '', 'closed after the request timeout');
  figure(SCENARIO, `slow connections still open after ${ATTACK_MS / 1000} s`, openAtEnd);

  expect(failed.map((p) => `${p.route}: ${p.status} ${p.error ?? ''} in ${p.ms.toFixed(0)} ms`)).toEqual([]);
  expect(platform.process?.crashed()).toBe(false);
});
