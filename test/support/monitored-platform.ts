import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { eventually, makeCertificate } from '@nap/testing';
import { startNapProcess } from './processes';
import type { NapProcess } from './processes';
import { NAP_ALERT_RULES, startPrometheus } from './prometheus';
import type { Prometheus } from './prometheus';

/** A standalone platform serving TLS, scraped on its management port by a real Prometheus with NAP's rules. */
export interface MonitoredPlatform {
  nap: NapProcess;
  /** Where the platform answers (https). */
  url: string;
  /** Its management listener, `host:port`: the Prometheus target. */
  health: string;
  prometheus: Prometheus;
  /** One request over https, trusting only the platform's certificate. */
  call(method: string, route: string, body?: unknown, bearer?: string): Promise<{ status: number; text: string }>;
  login(username: string, password: string): Promise<{ status: number; text: string }>;
  /** Runs a job of `workflow` to its end; answers the state it ended in. */
  runJob(token: string, workflow: string, variables: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

/**
 * `npm start`'s entry with `NAP_HEALTH_PORT` and a certificate valid `certificateDays` (made here),
 * and a Prometheus (test/support/prometheus.ts) scraping its `/metrics` every second with
 * `deploy/helm/nap/files/prometheus/nap-alerts.yaml` loaded; resolves once Prometheus scraped it.
 */
export async function startMonitoredPlatform(adminPassword: string, certificateDays: number): Promise<MonitoredPlatform> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-monitored-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  let nap: NapProcess | undefined;
  let prometheus: Prometheus | undefined;
  const stop = async () => {
    await prometheus?.stop();
    await nap?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    makeCertificate(cert, key, certificateDays);
    const ca = readFileSync(cert);
    nap = await startNapProcess(
      'deploy/standalone/dist/main.js',
      {
        NAP_PORT: '0',
        NAP_HEALTH_PORT: '0',
        NAP_DATA_DIR: path.join(dir, 'data'),
        NAP_ADMIN_PASSWORD: adminPassword,
        NAP_TLS_CERT_FILE: cert,
        NAP_TLS_KEY_FILE: key,
      },
      /NAP is listening on https:\/\/[\d.]+:\d+/,
      60_000,
    );
    const url = /NAP is listening on (https:\/\/[\d.]+:\d+)/.exec(nap.output())?.[1];
    const health = /"health":"http:\/\/([\d.]+:\d+)"/.exec(nap.output())?.[1];
    if (url === undefined || health === undefined) throw new Error(`The platform did not say where it listens:\n${nap.output()}`);
    const started = await startPrometheus({ targets: [health], ruleFiles: [NAP_ALERT_RULES] });
    prometheus = started;
    // scraped once before anything happens, so that rates see what follows
    await eventually('the platform scraped', async () => (await started.targets())[0]?.health === 'up', { intervalMs: 250 });

    const call: MonitoredPlatform['call'] = (method, route, body, bearer) =>
      new Promise((resolve, reject) => {
        const req = https.request(
          `${url}${route}`,
          {
            method,
            ca,
            headers: {
              ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
              ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
    const runJob: MonitoredPlatform['runJob'] = async (token, workflow, variables) => {
      const run = await call('POST', `/workflow_engine/startJobWithOptions/${workflow}`, { options: { variables } }, token);
      if (run.status !== 200) throw new Error(`starting ${workflow}: ${run.status} ${run.text}`);
      const jobId = (JSON.parse(run.text) as { _id: string })._id;
      return eventually(
        `job ${jobId} of ${workflow} ended`,
        async () => {
          const { data } = JSON.parse((await call('GET', `/operations-manager/jobs/${jobId}`, undefined, token)).text) as {
            data: { status: string };
          };
          return ['complete', 'error', 'canceled'].includes(data.status) ? data.status : undefined;
        },
        { intervalMs: 100 },
      );
    };
    return {
      nap,
      url,
      health,
      prometheus: started,
      call,
      login: (username, password) => call('POST', '/login', { user: { username, password } }),
      runJob,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
