import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Caller, EventStreamFilter, JobAudience } from '@nap/contracts';
import type { BusClient } from '@nap/bus';
import type { JobEventHub } from '../../src/job-event-hub';

/** What the tests of the job event hub stand around it: the workflow service's one answer, and streams over HTTP. */

/** Who follows the stream at `/<name>`: the caller and its filter. */
export type StreamCallers = Map<string, { caller: Caller; filter: EventStreamFilter }>;

/**
 * The workflow service's side of `workflow.jobAudiences`, the only call the hub makes: answers the
 * audiences of `audiences` asked for, records each call's job ids in `asked`, and first awaits what
 * `gate()` answers at the time (a test holds the answers back with it).
 */
export function jobAudiencesClient(
  audiences: JobAudience[],
  asked: string[][],
  gate: () => Promise<void> | undefined = () => undefined,
): BusClient {
  return {
    call: async (operation: string, input: { body: { jobIds: string[] } }) => {
      if (operation !== 'workflow.jobAudiences') throw new Error(`unexpected call of ${operation}`);
      asked.push(input.body.jobIds);
      await gate();
      return { status: 200, body: { jobs: audiences.filter((a) => input.body.jobIds.includes(a.jobId)) } };
    },
  } as unknown as BusClient;
}

/**
 * Serves the hub's stream to the callers of `callers` at `/<name>` (404 for others), from the
 * position after `Last-Event-ID` when the request has one, else from new events; on a free port.
 */
export async function serveJobEvents(hub: JobEventHub, callers: StreamCallers): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const who = callers.get(req.url?.slice(1) ?? '');
    if (who === undefined) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'text/event-stream');
    res.flushHeaders();
    const last = req.headers['last-event-id'];
    void hub.watchAll(who.caller, who.filter, typeof last === 'string' ? { startSeq: Number(last) + 1 } : 'new', res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
