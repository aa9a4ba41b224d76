/**
 * A device that counts: an HTTP server on loopback that the platform reaches through inventory
 * devices (`gw_http_base_url`) and workflow tasks (`GatewayDevices` `sendRequest`). Each request is
 * one execution of a task; the peer records when it arrived and answers after `holdMs`, so that a
 * kill lands while tasks are in flight.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Execution {
  /** The request path: `/<device path>/<job id>`. */
  path: string;
  /** Epoch ms of its arrival. */
  at: number;
}

export class DevicePeer {
  readonly executions: Execution[] = [];

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(holdMs: number): Promise<DevicePeer> {
    const holder: { peer?: DevicePeer } = {};
    const server = createServer((req, res) => {
      holder.peer?.executions.push({ path: (req.url ?? '').split('?')[0] ?? '', at: Date.now() });
      req.resume();
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true }));
      }, holdMs).unref();
    });
    server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const peer = new DevicePeer(server, `http://127.0.0.1:${port}`);
    holder.peer = peer;
    return peer;
  }

  /** Executions of one task: requests to `/<device>/<jobId>`. */
  of(device: string, jobId: string): Execution[] {
    return this.executions.filter((e) => e.path === `/${device}/${jobId}`);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
