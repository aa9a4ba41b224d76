import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '@nap/runtime';
import { SYSTEM_CALLER } from '@nap/contracts';
import { workflowDocument } from '@nap/testing';
import { buildJobQuery } from '../src/domain/job-query';
import { newJobRecord, toPublicJob } from '../src/domain/job-model';
import { engineOptionsFromEnv, persistentEngineId } from '../src';

describe('engine settings from the environment', () => {
  it('takes the lease, renewal, scan and id, and leaves the rest to the defaults', () => {
    expect(engineOptionsFromEnv({})).toEqual({});
    expect(
      engineOptionsFromEnv({
        NAP_WORKFLOW_LEASE_MS: '5000',
        NAP_WORKFLOW_RENEW_MS: '1000',
        NAP_WORKFLOW_SCAN_MS: '500',
        NAP_WORKFLOW_SERVER_ID: 'wf-0',
      }),
    ).toEqual({
      leaseMs: 5000,
      renewMs: 1000,
      scanMs: 500,
      serverId: 'wf-0',
    });
  });

  it('takes the archive batch and the retention interval', () => {
    expect(engineOptionsFromEnv({ NAP_JOB_ARCHIVE_BATCH: '500', NAP_JOB_RETENTION_INTERVAL_MS: '3600000' })).toEqual({
      archiveBatchJobs: 500,
      retentionIntervalMs: 3_600_000,
    });
    expect(() => engineOptionsFromEnv({ NAP_JOB_ARCHIVE_BATCH: '0' })).toThrow(
      /NAP_JOB_ARCHIVE_BATCH must be a whole number of jobs from 1/,
    );
    expect(() => engineOptionsFromEnv({ NAP_JOB_RETENTION_INTERVAL_MS: '10' })).toThrow(/NAP_JOB_RETENTION_INTERVAL_MS .* from 1000/);
  });

  it('takes the most jobs of a job tree', () => {
    expect(engineOptionsFromEnv({ NAP_MAX_JOBS_PER_TREE: '50000' })).toEqual({ maxJobsPerTree: 50_000 });
    expect(() => engineOptionsFromEnv({ NAP_MAX_JOBS_PER_TREE: '0' })).toThrow(
      /NAP_MAX_JOBS_PER_TREE must be a whole number of jobs from 1/,
    );
  });

  it('lists every bad value at once', () => {
    let error: unknown;
    try {
      engineOptionsFromEnv({ NAP_WORKFLOW_LEASE_MS: '2s', NAP_WORKFLOW_SCAN_MS: '5', NAP_WORKFLOW_SERVER_ID: 'a b' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(/NAP_WORKFLOW_LEASE_MS .*"2s"/);
    expect(problems.join('\n')).toMatch(/NAP_WORKFLOW_SCAN_MS .*from 20/);
    expect(problems.join('\n')).toMatch(/NAP_WORKFLOW_SERVER_ID/);
  });

  it('refuses a renewal too slow for the lease, or a scan slower than the lease', () => {
    expect(() => engineOptionsFromEnv({ NAP_WORKFLOW_LEASE_MS: '1000', NAP_WORKFLOW_RENEW_MS: '600' })).toThrow(
      /RENEW_MS \(600\) must be at most half of the lease \(1000 ms\)/,
    );
    expect(() => engineOptionsFromEnv({ NAP_WORKFLOW_RENEW_MS: '2000' })).toThrow(/at most half of the lease \(3000 ms\)/);
    expect(() => engineOptionsFromEnv({ NAP_WORKFLOW_LEASE_MS: '1000', NAP_WORKFLOW_SCAN_MS: '1500' })).toThrow(
      /SCAN_MS \(1500\) must not exceed the lease/,
    );
  });
});

describe('the engine id of a single-process installation', () => {
  it('is created once in the data directory and the same on every start', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-wf-id-'));
    try {
      const id = persistentEngineId(dir);
      expect(id).toMatch(/^workflow-[0-9a-f-]{36}$/);
      expect(persistentEngineId(dir)).toBe(id);
      expect(readFileSync(path.join(dir, 'workflow-engine.id'), 'utf8').trim()).toBe(id);
      // a damaged file gets a new id
      writeFileSync(path.join(dir, 'workflow-engine.id'), 'not an id!\n');
      const replaced = persistentEngineId(dir);
      expect(replaced).not.toBe(id);
      expect(persistentEngineId(dir)).toBe(replaced);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('members of a stored job that never leave the service', () => {
  it('cannot be queried, sorted or projected, and are left out of every page', () => {
    for (const member of [
      'runAs',
      'lease',
      'outbox.0.payload',
      'eventsPublished',
      'steps',
      'archive',
      'visibleTo',
      'triggerChain',
      'treeJobs',
      'secretInputs',
      'traceContext.traceparent',
    ]) {
      expect(() => buildJobQuery({ include: member })).toThrow(/not a field path/);
      expect(() => buildJobQuery({ sort: member })).toThrow(/not a field path/);
    }
    expect(buildJobQuery({}).projection).toEqual({
      runAs: 0,
      lease: 0,
      outbox: 0,
      eventsPublished: 0,
      steps: 0,
      archive: 0,
      visibleTo: 0,
      triggerChain: 0,
      treeJobs: 0,
      secretInputs: 0,
      traceContext: 0,
    });
    expect(buildJobQuery({ exclude: 'tasks' }).projection).toEqual({
      tasks: 0,
      runAs: 0,
      lease: 0,
      outbox: 0,
      eventsPublished: 0,
      steps: 0,
      archive: 0,
      visibleTo: 0,
      triggerChain: 0,
      treeJobs: 0,
      secretInputs: 0,
      traceContext: 0,
    });
  });

  it('are not in the job as the interface shows it', () => {
    const job = newJobRecord({
      id: 'j1',
      workflow: workflowDocument('w', {}, [['workflow_start', 'workflow_end']]),
      variables: {},
      caller: SYSTEM_CALLER,
      serverId: 'e1',
      now: 1,
    });
    expect(job).toMatchObject({
      lease: 'e1',
      outbox: [],
      eventsPublished: 0,
      visibleTo: ['*'],
      tasks: { workflow_start: { status: 'pending' }, workflow_end: { status: 'incomplete' } },
    });
    const traceContext = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    const shown = toPublicJob({ ...job, steps: 3, archive: 'an-archive:000000', triggerChain: ['t1'], traceContext }) as Record<
      string,
      unknown
    >;
    for (const member of [
      'runAs',
      'lease',
      'outbox',
      'eventsPublished',
      'steps',
      'archive',
      'visibleTo',
      'triggerChain',
      'treeJobs',
      'traceContext',
    ])
      expect(shown).not.toHaveProperty(member);
  });
});
