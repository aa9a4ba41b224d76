import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '@nap/testing';
import { ROOT, startPlatform } from './platform';
import type { RunningPlatform } from './platform';
import { APPROVAL, CHECK, LONG, PROVISION_VLAN, createPortTurnUpAutomation, createWorkflows, jobStatus, startJob } from './workflows';
import type { StartedJob } from './workflows';

/**
 * A platform holding what a network team's platform holds on a working day, for walking the console
 * as a person does (and for tests that need a busy platform): two projects of the shared fixtures
 * (Cisco IOS, Arista EOS), the tests' workflows, an automation with its form, a rollout that starts
 * a child job per site; jobs in every state — many complete (more than a page), some in error (the
 * night's failures), long-running, paused, waiting for an approval, canceled, a parent and its
 * children; a device inventory in groups; accounts in groups of each role.
 *
 * From a shell (a platform that stays up until Ctrl-C, its address and the accounts printed):
 *   npx esbuild console/test/support/team-data.ts --bundle --platform=node --packages=external \
 *     --define:__dirname='"'$PWD/console/test/support'"' --outfile=/tmp/team-data.js && node /tmp/team-data.js
 * (run from the repository's root: the bundle finds the repository through `__dirname`)
 */

const FIXTURES = path.resolve(ROOT, '../shared/fixtures/itential-assets');
const PROJECTS = ['Cisco_IOS_Projects_Cisco_IOS.project.json', 'Arista_EOS_Projects_Arista_EOS.project.json'];

/** The accounts of the team: one password each, written here so that a person can log in as them. */
export const TEAM = [
  { username: 'priya', firstname: 'Priya', lastname: 'Raman', group: 'netops', password: 'priya-netops-pass-1' },
  { username: 'marc', firstname: 'Marc', lastname: 'Dubois', group: 'netops', password: 'marc-netops-pass-1' },
  { username: 'lena', firstname: 'Lena', lastname: 'Vogel', group: 'automation-authors', password: 'lena-author-pass-1' },
  { username: 'sam', firstname: 'Sam', lastname: 'Okafor', group: 'auditors', password: 'sam-auditor-pass-1' },
  { username: 'ci-bot', firstname: 'CI', lastname: 'Pipeline', group: 'pipelines', password: 'ci-bot-pipeline-pass-1' },
] as const;

const GROUPS: Record<string, { description: string; roles: string[] }> = {
  netops: { description: 'Network operations, follow-the-sun shifts', roles: ['operations'] },
  'automation-authors': { description: 'Write and publish workflows', roles: ['engineering'] },
  auditors: { description: 'Compliance reviewers', roles: ['auditor'] },
  pipelines: { description: 'CI and integrations that start jobs', roles: ['apiwrite'] },
};

const SITES = ['paris-1', 'lyon-2', 'berlin-1', 'madrid-3', 'london-2', 'milan-1'];

/** "Site rollout": for each of `$var.job.sites`, a child job of "Interface check" (mode from the site's item). */
export const SITE_ROLLOUT = {
  name: 'Site rollout',
  type: 'automation',
  groups: [],
  tasks: {
    workflow_start: { name: 'workflow_start', groups: [] },
    workflow_end: { name: 'workflow_end', groups: [] },
    each: {
      name: 'childJob',
      app: 'WorkFlowEngine',
      type: 'operation',
      summary: 'Check each site',
      groups: [],
      variables: {
        incoming: {
          task: '',
          workflow: 'Interface check',
          variables: {},
          data_array: '$var.job.sites',
          transformation: '',
          loopType: 'parallel',
        },
        outgoing: { job_details: null },
      },
    },
  },
  transitions: {
    workflow_start: { each: { state: 'success', type: 'standard' } },
    each: { workflow_end: { state: 'success', type: 'standard' } },
    workflow_end: {},
  },
};

/** "Interface soak test": one stub that waits `$var.job.seconds`, then finishes as `$var.job.mode` (error stops the job). */
export const SOAK_TEST = {
  name: 'Interface soak test',
  type: 'automation',
  groups: [],
  tasks: {
    workflow_start: { name: 'workflow_start', groups: [] },
    workflow_end: { name: 'workflow_end', groups: [] },
    soak: {
      name: 'stub',
      app: 'WorkFlowEngine',
      type: 'automatic',
      summary: 'Soak the interface',
      groups: [],
      variables: {
        incoming: { type: '$var.job.mode', delay: '$var.job.seconds', response: 'CRC errors on Gi0/2' },
        outgoing: { response: null },
      },
    },
  },
  transitions: {
    workflow_start: { soak: { state: 'success', type: 'standard' } },
    soak: { workflow_end: { state: 'success', type: 'standard' } },
    workflow_end: {},
  },
};

export interface TeamData {
  /** Jobs by what they show: the ids a walk opens. */
  jobs: {
    complete: StartedJob[];
    errored: StartedJob[];
    failed: StartedJob[];
    running: StartedJob[];
    paused: StartedJob;
    waiting: StartedJob[];
    canceled: StartedJob;
    rollout: StartedJob;
  };
  devices: string[];
}

/**
 * Puts the team's data in a running platform (as its admin); about 100 jobs, 14 devices, 5 accounts.
 * `nightChecks`: how many checks went well overnight (60, more than two pages of the jobs list, for
 * a walk by hand; a test that pages nothing asks for a few).
 */
export async function seedTeam(platform: RunningPlatform, { nightChecks = 60 }: { nightChecks?: number } = {}): Promise<TeamData> {
  for (const file of PROJECTS) {
    const project = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as unknown;
    await platform.api('POST', '/automation-studio/projects/import', { project });
  }
  await createWorkflows(platform, APPROVAL, CHECK, LONG, PROVISION_VLAN, SITE_ROLLOUT, SOAK_TEST);
  await createPortTurnUpAutomation(platform);

  const groupIds: Record<string, string> = {};
  for (const [name, group] of Object.entries(GROUPS)) {
    const made = await platform.api<{ data: { _id: string } }>('POST', '/user-management/groups', {
      group: { name, description: group.description },
    });
    groupIds[name] = made.data._id;
    await platform.api('PUT', `/user-management/groups/${made.data._id}/roles`, { roles: group.roles });
  }
  for (const person of TEAM) {
    await platform.api('POST', '/user-management/accounts', {
      account: {
        username: person.username,
        password: person.password,
        firstname: person.firstname,
        lastname: person.lastname,
        email: `${person.username}@example.net`,
        groups: [groupIds[person.group]],
      },
    });
  }

  const devices: string[] = [];
  const kinds = [
    { prefix: 'core', os: 'cisco_ios', groups: ['core', 'cisco'] },
    { prefix: 'edge', os: 'arista_eos', groups: ['edge', 'arista'] },
    { prefix: 'access', os: 'cisco_ios', groups: ['access', 'cisco'] },
  ];
  for (const [i, site] of SITES.entries()) {
    for (const kind of kinds.slice(0, i < 2 ? 3 : 2)) {
      const name = `${kind.prefix}-${site}`;
      devices.push(name);
      await platform.api('POST', '/gw/createInventoryDevice', {
        name,
        groups: [...kind.groups, site.replace(/-\d+$/, '')],
        variables: {
          gw_host: `10.${20 + i}.0.${devices.length}`,
          gw_port: 22,
          gw_network_os: kind.os,
          gw_user: 'netops',
          gw_password: `device-password-${i}`,
        },
      });
    }
  }

  // the night's work: many checks that went well, a few that did not
  const complete: StartedJob[] = [];
  for (let i = 0; i < nightChecks; i += 1)
    complete.push(await startJob(platform, 'Interface check', { mode: 'success', site: SITES[i % SITES.length] }));
  const errored: StartedJob[] = [];
  for (const site of ['berlin-1', 'madrid-3', 'milan-1'])
    errored.push(await startJob(platform, 'Interface check', { mode: 'error', site }));
  const failed = [await startJob(platform, 'Interface check', { mode: 'failure', site: 'london-2' })];
  const rollout = await startJob(platform, 'Site rollout', {
    sites: [
      { mode: 'success', site: 'paris-1' },
      { mode: 'success', site: 'lyon-2' },
      { mode: 'error', site: 'berlin-1' },
    ],
  });
  for (let i = 0; i < 6; i += 1)
    complete.push(
      await startJob(platform, 'Provision VLAN', { device: `core-${SITES[i % 2]}`, vlan: 200 + i, vlanName: `guests-${i}`, _id: '' }),
    );

  // what is going on now
  const running = [
    await startJob(platform, 'Long maintenance', { seconds: 4 * 3600 }),
    await startJob(platform, 'Long maintenance', { seconds: 2 * 3600 }),
  ];
  const paused = await startJob(platform, 'Long maintenance', { seconds: 3600 });
  const waiting = [
    await startJob(platform, 'Change approval', { plan: 'vlan 120\n name guests', applySeconds: 0 }),
    await startJob(platform, 'Change approval', { plan: 'interface Gi0/3\n shutdown', applySeconds: 0 }),
  ];
  const canceled = await startJob(platform, 'Long maintenance', { seconds: 600 });

  await eventually('the paused job running', async () => (await jobStatus(platform, paused._id)) === 'running', { timeoutMs: 20_000 });
  await platform.api('POST', `/operations-manager/jobs/${paused._id}/pause`);
  await platform.api('POST', '/operations-manager/jobs/cancel', { jobIds: [canceled._id] });
  for (const job of [...errored, ...failed])
    await eventually(`job ${job._id} in error`, async () => (await jobStatus(platform, job._id)) === 'error', { timeoutMs: 30_000 });
  await eventually(
    'the night’s checks complete',
    async () => (await Promise.all(complete.map((job) => jobStatus(platform, job._id)))).every((s) => s === 'complete'),
    { timeoutMs: 60_000 },
  );
  return { jobs: { complete, errored, failed, running, paused, waiting, canceled, rollout }, devices };
}

/** From a shell: a platform with the team's data, up until Ctrl-C. */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 0);
  const platform = await startPlatform({}, { port });
  const data = await seedTeam(platform);
  const { jobs } = data;
  const ids = Object.fromEntries(Object.entries(jobs).map(([kind, found]) => [kind, [found].flat().map((job) => job._id)]));
  process.stdout.write(
    `${JSON.stringify({ url: `${platform.url}/console/`, admin: 'admin / console-admin-password', team: TEAM, jobs: ids, devices: data.devices }, null, 1)}\n`,
  );
  const stop = () => void platform.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module) void main();
