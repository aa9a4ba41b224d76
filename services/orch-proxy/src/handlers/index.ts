import type { HandlerMap } from '@nap/bus';
import type { OrchProxyContext } from '../context';
import { restAction } from './rest-action';
import { restQuery } from './rest-query';
import { setLeaf } from './set-leaf';

/** Every operation of the orch-proxy service, by catalog name (`contracts/src/catalog/orch-proxy.ts`). */
export function orchProxyHandlers(svc: OrchProxyContext): HandlerMap<'orch-proxy'> {
  return {
    restAction: restAction(svc),
    restQuery: restQuery(svc),
    setLeaf: setLeaf(svc),
  };
}
