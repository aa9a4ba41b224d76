import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { adaptersAnsweringTo, genericAdapterRequest } from '../domain/adapters';
import { integrationsOfModels, sameName } from '../domain/integrations';
import { taskTarget } from '../domain/task-calls';
import { callThroughAdapter } from '../steps/adapters';
import type { AdminContext } from '../context';

/** Bus only: a workflow task whose app is an integration or an adapter, run there with the credentials only the admin service holds. */
export function runTask(svc: AdminContext): Handler<'admin.runTask'> {
  return async (input) => {
    const task = input.body;
    const [integrations, adapters] = await Promise.all([integrationsFor(svc, task.app), svc.adapters.models()]);
    const target = taskTarget(task, integrations, adaptersAnsweringTo(task.app, adapters));
    if (target.kind === 'integration')
      return {
        result: await svc.integrationCalls.call(await svc.integrations.get(target.name), task.method, task.incoming, task.timeoutMs),
      };
    const { request, noBasePath } = genericAdapterRequest(target.name, task.method, task.incoming, task.timeoutMs);
    const answer = await callThroughAdapter(svc, target.name, request, noBasePath);
    if (answer.status < 200 || answer.status >= 300)
      throw new AppError(
        'INTEGRATION_CALL_FAILED',
        `Adapter "${target.name}" answered ${answer.status} to ${request.method} ${request.path}`,
        {
          details: answer,
        },
      );
    return { result: answer };
  };
}

/** Names of the integrations a task's app answers to: by name, else by its model's app or versionId; case-insensitive. */
async function integrationsFor(svc: AdminContext, app: string): Promise<string[]> {
  const all = await svc.integrations.models();
  const byName = all.filter((i) => sameName(i.name, app));
  if (byName.length > 0) return byName.map((i) => i.name);
  return integrationsOfModels(all, await svc.integrationModels.apps(), app).map((i) => i.name);
}
