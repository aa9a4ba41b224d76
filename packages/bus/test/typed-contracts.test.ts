import { SYSTEM_CALLER, getOperation, validateRequest, validateResponse } from '@nap/contracts';
import type { BodyOf, OperationId, ParamsOf, QueryOf, ResponseOf } from '@nap/contracts';
import { createBusClient, createMemoryBus, serve } from '@nap/bus';
import type { Handler, HandlerMap } from '@nap/bus';
import { createLogger } from '@nap/telemetry';

/**
 * The catalog's schemas are the only source of the types of requests and answers. The lines marked
 * `@ts-expect-error` are checked by the type-check of `npm test` (`tsc -p tsconfig.json`): each must
 * fail to compile, so a change that let a wrong member through would break the build. The tests
 * below check at run time that data typed by a schema is valid against that very schema.
 */

// ---- requests and answers are typed by their schemas --------------------------------------------

const start: BodyOf<'workflow.startJobWithOptions'> = { options: { description: 'nightly', variables: { devices: ['r1'] }, groups: [] } };
// @ts-expect-error `option` is not a member of the body (the spec's `options` is required)
const misspelled: BodyOf<'workflow.startJobWithOptions'> = { option: {} };
// @ts-expect-error `groups` is an array of group ids, not a string
const wrongType: BodyOf<'workflow.startJobWithOptions'> = { options: { groups: 'admins' } };

const finishParams: ParamsOf<'workflow.finishTask'> = { jobId: 'j1', taskId: 't1' };
// @ts-expect-error the route's parameters are :jobId and :taskId
const wrongParams: ParamsOf<'workflow.finishTask'> = { jobId: 'j1', task: 't1' };

const query: QueryOf<'workflow.getJobs'> = { limit: 10, equals: { status: 'running' }, order: -1 };
// @ts-expect-error order is 1 or -1
const wrongOrder: QueryOf<'workflow.getJobs'> = { order: 2 };

function nextSkip(page: ResponseOf<'workflow.getJobs'>): number | null | undefined {
  // @ts-expect-error the page has no member `next`
  void page.next;
  return page.nextPageSkip;
}

// @ts-expect-error every operation id is checked: there is no workflow.startJobNow
type _Unknown = BodyOf<'workflow.startJobNow'>;

// ---- handler maps are keyed and typed by operation ----------------------------------------------

const getJob: Handler<'workflow.getJob'> = async (input) => {
  const id: string = input.params.jobId;
  // @ts-expect-error the route has no :id parameter
  void input.params.id;
  return { message: 'Successfully retrieved item', data: { _id: id, name: 'wf', tasks: {}, status: 'running' }, metadata: {} };
};

// @ts-expect-error the envelope's message is the constant 'Successfully retrieved item'
const wrongAnswer: Handler<'workflow.getJob'> = async () => ({
  message: 'ok',
  data: { _id: 'x', name: 'wf', tasks: {}, status: 'running' },
  metadata: {},
});

const handlers: HandlerMap<'workflow'> = {
  getJob,
  // @ts-expect-error the workflow service has no operation `startJob`
  startJob: getJob,
};

// @ts-expect-error a handler under another operation's name must have that operation's types
const swapped: HandlerMap<'workflow'> = { cancelJobs: getJob };

async function caller(client: ReturnType<typeof createBusClient>): Promise<void> {
  const { body } = await client.call('workflow.getJob', { params: { jobId: 'j1' } }, { caller: SYSTEM_CALLER });
  const status: string = body.data.status;
  void status;
  // @ts-expect-error the body of cancelJobs is { jobIds }
  await client.call('workflow.cancelJobs', { body: { ids: ['j1'] } }, { caller: SYSTEM_CALLER });
  // @ts-expect-error getJob needs its :jobId
  await client.call('workflow.getJob', {}, { caller: SYSTEM_CALLER });
}

void [misspelled, wrongType, wrongParams, wrongOrder, nextSkip, wrongAnswer, swapped, caller];

describe('typed contracts', () => {
  it('types requests so that a value of the type is valid against the schema it came from', () => {
    const parts = { params: { workflow: 'nightly' }, body: start };
    expect(validateRequest(getOperation('workflow.startJobWithOptions'), parts)).toEqual([]);
    expect(validateRequest(getOperation('workflow.finishTask'), { params: finishParams, body: { variables: {} } })).toEqual([]);
    expect(validateRequest(getOperation('workflow.getJobs'), { query: { ...query } })).toEqual([]);
  });

  it('serves a typed handler map and answers typed calls over the bus', async () => {
    const bus = createMemoryBus();
    const logger = createLogger({ name: 'typed-test', level: 'silent' });
    const service = await serve({ bus, service: 'workflow', version: '0.0.1', handlers: { getJob: handlers.getJob }, logger });
    try {
      const client = createBusClient({ bus });
      const { body } = await client.call('workflow.getJob', { params: { jobId: 'j42' } }, { caller: SYSTEM_CALLER });
      expect(body).toEqual({
        message: 'Successfully retrieved item',
        data: { _id: 'j42', name: 'wf', tasks: {}, status: 'running' },
        metadata: {},
      });
      expect(validateResponse(getOperation('workflow.getJob'), body)).toEqual([]);
    } finally {
      await service.stop();
      await bus.close();
    }
  });

  it('keeps every operation id literal in the type of the catalog', () => {
    const ids: OperationId[] = [
      'workflow.getJob',
      'mop.RunCommandTemplate',
      'gateway-devices.runCommand',
      'admin.login',
      'studio.getWorkflow',
      'orch-proxy.restQuery',
    ];
    for (const id of ids) expect(getOperation(id).id).toBe(id);
  });
});
