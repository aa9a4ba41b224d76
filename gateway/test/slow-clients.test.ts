import net from 'node:net';
import express from 'express';
import { listen } from '../src/server';
import type { HttpServer } from '../src/server';

let server: HttpServer;

beforeAll(async () => {
  const app = express();
  app.use(express.json());
  app.post('/echo', (req, res) => {
    res.json(req.body);
  });
  server = await listen(app, '127.0.0.1', 0, { headersTimeoutMs: 1_000, requestTimeoutMs: 1_500 });
});

afterAll(async () => {
  await server.close();
});

/** Sends `text` and resolves with what the server answered once it closed the connection (or after `limitMs`). */
function send(text: string, limitMs: number): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false });
    }, limitMs);
    socket.on('data', (d) => (answer += d.toString('utf8')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closed: true });
    });
    socket.on('error', () => undefined);
    socket.write(text);
  });
}

describe('slow clients', () => {
  it('drops a request whose body stalls with 408 instead of holding it for minutes', async () => {
    const { answer, closed } = await send(
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
      15_000,
    );
    expect(closed).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('drops a client that never finishes its headers', async () => {
    const { closed } = await send('GET /echo HTTP/1.1\r\nHost: x\r\nX-Slow: ', 15_000);
    expect(closed).toBe(true);
  });

  it('still answers a client that sends its request in time', async () => {
    const { answer } = await send(
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"a":1}',
      15_000,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('{"a":1}');
  });
});
