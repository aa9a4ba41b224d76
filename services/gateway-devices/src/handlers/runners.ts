import type { HandlerMap } from '@nap/bus';
import type { RunRequest, RunnerKind } from '../runners';
import type { GatewayContext } from './context';

type Named = { body: { name: string } };
type Run = { body: RunRequest };
type InCollection = { body: RunRequest & { collection: string } };

/** Playbooks, modules, runner modules, roles, collections, scripts and IaC modules (bus-only). */
export function runnerHandlers(g: GatewayContext): HandlerMap {
  const r = g.runners;
  const listed = async (kind: RunnerKind, refresh = false) => {
    const results = refresh ? await r.refresh(kind) : await r.list(kind);
    return { results, total: results.length };
  };
  const log = (what: string, outcome: { status: string; exitCode: number | null; durationMs: number }) => {
    g.logger.info({ run: what, status: outcome.status, exitCode: outcome.exitCode, durationMs: outcome.durationMs }, 'Runner finished');
    return outcome;
  };
  return {
    getPlaybook: async (input: Named) => r.get('playbooks', input.body.name),
    getPlaybooks: async () => listed('playbooks'),
    runPlaybook: async (input: Run) => log(`playbook ${input.body.name}`, await r.runPlaybook(input.body, false)),
    dryRunPlaybook: async (input: Run) => log(`playbook ${input.body.name} --check`, await r.runPlaybook(input.body, true)),
    refreshPlaybooks: async () => listed('playbooks', true),

    getModule: async (input: Named) => r.get('modules', input.body.name),
    getModules: async () => listed('modules'),
    runModule: async (input: Run) => log(`module ${input.body.name}`, await r.runModule(input.body)),
    refreshModules: async () => listed('modules', true),

    getRunnerModule: async (input: Named) => r.get('runnerModules', input.body.name),
    getRunnerModules: async () => listed('runnerModules'),
    runRunnerModule: async (input: Run) => log(`runner module ${input.body.name}`, await r.runRunnerModule(input.body)),
    refreshRunnerModules: async () => listed('runnerModules', true),

    getRole: async (input: Named) => r.get('roles', input.body.name),
    getRoles: async () => listed('roles'),
    runRole: async (input: Run) => log(`role ${input.body.name}`, await r.runRole(input.body)),
    refreshRoles: async () => listed('roles', true),

    getCollections: async () => listed('collections'),
    refreshCollections: async () => listed('collections', true),
    getCollectionModules: async (input: { body: { collection: string } }) => {
      const results = await r.collectionItems(input.body.collection, 'modules');
      return { results, total: results.length };
    },
    getCollectionRoles: async (input: { body: { collection: string } }) => {
      const results = await r.collectionItems(input.body.collection, 'roles');
      return { results, total: results.length };
    },
    getCollectionModule: async (input: InCollection) => r.collectionItem(input.body.collection, 'modules', input.body.name),
    getCollectionRole: async (input: InCollection) => r.collectionItem(input.body.collection, 'roles', input.body.name),
    runCollectionModule: async (input: InCollection) => log(`collection module ${input.body.name}`, await r.runCollectionModule(input.body.collection, input.body)),
    runCollectionRole: async (input: InCollection) => log(`collection role ${input.body.name}`, await r.runCollectionRole(input.body.collection, input.body)),

    getScript: async (input: Named) => r.get('scripts', input.body.name),
    getScripts: async () => listed('scripts'),
    runScript: async (input: Run) => log(`script ${input.body.name}`, await r.runScript({ ...input.body, env: {} })),
    runScriptEnv: async (input: Run) => log(`script ${input.body.name}`, await r.runScript(input.body)),
    refreshScripts: async () => listed('scripts', true),

    getIac: async (input: Named) => r.get('iac', input.body.name),
    getIacs: async () => listed('iac'),
    initIac: async (input: Run) => log(`init ${input.body.name}`, await r.runIac('init', input.body)),
    planIac: async (input: Run) => log(`plan ${input.body.name}`, await r.runIac('plan', input.body)),
    applyIac: async (input: Run) => log(`apply ${input.body.name}`, await r.runIac('apply', input.body)),
    destroyIac: async (input: Run) => log(`destroy ${input.body.name}`, await r.runIac('destroy', input.body)),
  } as HandlerMap;
}
