import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { JobDocument } from '@nap/contracts';
import { startCliSimulator } from '@nap/lab';
import type { CliSimulator } from '@nap/lab';
import { jobReaching } from '../support/automation';
import { call, login } from '../support/http';
import { REPO_ROOT, runNapData, startStandaloneAsDocumented } from '../support/processes';
import type { NapProcess } from '../support/processes';

/**
 * A team upgrades NAP: this release starts on the data an earlier release wrote, and everything
 * goes on. Each fixture under `test/upgrade/` is the data of a past release, made through that
 * release's own HTTP interface by `test/upgrade/make-fixture.mjs` and kept as a `nap-data` backup
 * (see its header for what it holds and how to make one for a new release). Restored and started
 * here, people sign in with the passwords they had, the jobs that waited for a person (one of them
 * paused) finish,
 * finished and archived jobs read as they were, the trigger, schedule, templates and device work,
 * and the audit trail goes on in the same hash chain.
 */

interface Manifest {
  release: { commit: string; committed: string };
  passwords: { admin: string; alice: string; device: string };
  groups: { netops: string };
  /** `null` where the release had no such thing yet (job archives, the audit trail). */
  jobs: { waiting: string; paused: string; complete: string; archived: string | null };
  archive: string | null;
  triggers: { endpoint: string; schedule: string };
  device: string;
  audit: { checked: number } | null;
}

const FIXTURES = path.join(REPO_ROOT, 'test/upgrade');
const releases = readdirSync(FIXTURES).filter((d) => existsSync(path.join(FIXTURES, d, 'manifest.json')));

let work: string;
const processes: NapProcess[] = [];
const devices: CliSimulator[] = [];

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'nap-e2e-upgrade-'));
});

afterAll(async () => {
  for (const p of processes.reverse()) if (p.child.exitCode === null && p.child.signalCode === null) await p.stop();
  for (const device of devices) await device.stop();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

it('has the data of at least one past release to start on', () => {
  expect(releases.length).toBeGreaterThan(0);
});

// The releases' data are restored and started side by side: each has its own data directory,
// platform and device, and most of a run is spent waiting on jobs, not working.
describe('the data of a past release', () => {
  it.concurrent.each(releases)(
    '%s: starts, and everything goes on where the old release stopped',
    async (release) => {
      const dir = path.join(FIXTURES, release);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
      const dataDir = path.join(work, release);
      const restored = await runNapData([
        'restore',
        path.join(dir, 'backup.ndjson.gz'),
        dataDir,
        '--secret-key-file',
        path.join(dir, 'secret.key'),
      ]);
      expect(restored).toMatchObject({ code: 0 });
      const { nap, url } = await startStandaloneAsDocumented(dataDir, 'a-password-the-data-does-not-have');
      processes.push(nap);

      // people sign in with the passwords they had
      const admin = await login(url, 'admin', manifest.passwords.admin);
      const alice = await login(url, 'alice', manifest.passwords.alice);
      expect(await call(url, alice, 'GET', '/whoami')).toMatchObject({ status: 200, body: { username: 'alice' } });

      const readJob = async (id: string) => {
        const res = await call(url, admin, 'GET', `/operations-manager/jobs/${id}`);
        if (res.status !== 200) throw new Error(`GET job ${id}: ${res.status} ${JSON.stringify(res.body)}`);
        return (res.body as { data: JobDocument }).data;
      };

      // the job that waited for a person finishes on this release's engine
      expect((await readJob(manifest.jobs.waiting)).tasks.approve?.status).toBe('running');
      const finished = await call(url, admin, 'POST', `/operations-manager/jobs/${manifest.jobs.waiting}/tasks/approve/finish`, {
        variables: {},
      });
      expect(finished.status).toBe(200);
      const done = await jobReaching(
        'the old waiting job complete',
        () => readJob(manifest.jobs.waiting),
        (j) => j.status === 'complete',
      );
      expect(done.variables).toMatchObject({ greeting: 'hello change' });

      // the paused one resumes where it stood, still waiting for its person
      expect(await readJob(manifest.jobs.paused)).toMatchObject({ status: 'paused' });
      expect((await call(url, admin, 'POST', `/operations-manager/jobs/${manifest.jobs.paused}/resume`)).status).toBe(200);
      await jobReaching(
        'the resumed job running',
        () => readJob(manifest.jobs.paused),
        (j) => j.status === 'running' && j.tasks.approve?.status === 'running',
      );
      expect(
        (await call(url, admin, 'POST', `/operations-manager/jobs/${manifest.jobs.paused}/tasks/approve/finish`, { variables: {} })).status,
      ).toBe(200);
      const resumed = await jobReaching(
        'the resumed job complete',
        () => readJob(manifest.jobs.paused),
        (j) => j.status === 'complete',
      );
      expect(resumed.variables).toMatchObject({ greeting: 'hello paused' });

      // finished jobs read as they were, by id and in filtered pages; the archive downloads
      expect(await readJob(manifest.jobs.complete)).toMatchObject({
        status: 'complete',
        name: 'greet',
        variables: { greeting: 'hello world' },
      });
      const page = await call(url, admin, 'GET', '/operations-manager/jobs?equals[status]=complete&equals[name]=greet&limit=25');
      expect(JSON.stringify(page.body)).toContain(manifest.jobs.complete);
      if (manifest.archive !== null) {
        const archive = await fetch(`${url}/operations-manager/jobs/archives/${manifest.archive}`, {
          headers: { authorization: `Bearer ${admin}` },
        });
        expect(archive.status).toBe(200);
        const lines = gunzipSync(Buffer.from(await archive.arrayBuffer()))
          .toString('utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { _id: string });
        expect(lines.map((l) => l._id)).toEqual([manifest.jobs.archived]);
      }

      // the endpoint trigger transforms its body with the old JST and starts the old automation
      const triggered = await call(url, admin, 'POST', '/operations-manager/triggers/endpoint/greet-loudly', { who: 'network' });
      expect(triggered.status).toBe(200);
      const triggeredJob = (triggered.body as { data: JobDocument }).data;
      const greeted = await jobReaching(
        'the triggered job complete',
        () => readJob(triggeredJob._id),
        (j) => j.status === 'complete',
      );
      expect(greeted.variables).toMatchObject({ greeting: 'hello NETWORK' });

      // the schedule is kept, due when it was
      const schedule = await call(url, admin, 'GET', `/operations-manager/triggers/${manifest.triggers.schedule}`);
      expect(schedule).toMatchObject({ status: 200, body: { data: { type: 'schedule', enabled: true, name: 'yearly greeting' } } });

      // the Jinja2 template renders
      const rendered = await call(url, admin, 'POST', '/template_builder/templates/interface/renderJinja', {
        context: { name: 'Gi0/2', description: 'to core' },
      });
      expect(rendered).toMatchObject({ status: 200 });
      expect(JSON.stringify(rendered.body)).toContain('interface Gi0/2\\n description to core');

      // the device's sealed password opens a session once its address is set; the command template runs on it
      const device = await startCliSimulator({
        deviceType: 'cisco_ios',
        hostname: 'edge-upgraded',
        username: 'netops',
        password: manifest.passwords.device,
        startPrivileged: true,
      });
      devices.push(device);
      const moved = await call(url, admin, 'POST', '/gw/createInventoryDevice', {
        name: manifest.device,
        variables: { gw_host: device.host, gw_port: device.port },
      });
      expect(moved.status).toBe(200);
      const ran = await call(url, admin, 'POST', '/mop/RunCommandTemplate', {
        template: 'version-check',
        variables: {},
        devices: [manifest.device],
      });
      expect(ran).toMatchObject({ status: 200, body: { all_pass_flag: true } });
      expect(JSON.stringify(ran.body)).toContain('edge-upgraded');

      // a new workflow of this release runs beside the old ones
      const fresh = await call(url, admin, 'POST', '/workflow_engine/startJobWithOptions/greet', {
        options: { variables: { who: 'new' } },
      });
      expect(fresh.status).toBe(200);
      await jobReaching(
        'a new job of the old workflow',
        () => readJob((fresh.body as JobDocument)._id),
        (j) => j.status === 'complete',
      );

      // one audit chain across the upgrade: the old release's records (where it kept a trail), then this one's
      const verified = (await call(url, admin, 'GET', '/audit/verify')).body as { valid: boolean; checked: number; firstBroken: unknown };
      expect(verified).toMatchObject({ valid: true, firstBroken: null });
      expect(verified.checked).toBeGreaterThan(manifest.audit?.checked ?? 0);
      const aliceRecords = await call(url, admin, 'GET', `/audit?actor=alice`);
      expect(JSON.stringify(aliceRecords.body)).toContain('"username":"alice"');
      if (manifest.audit !== null) {
        const groupRecords = await call(url, admin, 'GET', `/audit?targetId=${manifest.groups.netops}`);
        expect(JSON.stringify(groupRecords.body)).toContain('"username":"admin"');
      }

      expect(await nap.stop()).toBe(0);
    },
    180_000,
  );
});
