import {
  AppError,
  SERVICE_NAMES,
  TIMEOUTS_MS,
  declaredIndexesSchema,
  indexCreationSchema,
  indexStatusSchema,
  isServiceName,
  parseAs,
} from '@nap/contracts';
import type { DeclaredIndexes, IndexCreation, IndexStatus, ServiceName } from '@nap/contracts';
import { invalidMember } from '../domain/validation-error';
import type { Replica } from '../domain/applications';
import type { Replicas } from './replicas';

/**
 * `/indexes`: each service declares the indexes of its collections and compares them with its own
 * store (MongoDB or embedded); the admin service asks one replica of each service over its control
 * channel, so the answer is what the running code declares, never a list kept here.
 */
export class ServiceIndexes {
  constructor(private readonly replicas: Replicas) {}

  /** Every declared index of every service that has a replica answering, by service and collection. */
  async declared(): Promise<DeclaredIndexes[]> {
    const byService = await this.replicaPerService();
    const answers = await Promise.all(
      [...byService.entries()].map(async ([service, replica]) => {
        const answer = await this.replicas.send(replica, { command: 'indexes' }, TIMEOUTS_MS.short);
        if (!Array.isArray(answer))
          throw new AppError('INTERNAL', `${service} answered its declared indexes with something other than a list`);
        // the replica answers { collection, indexes }; the service is the one asked
        return answer.map((d: unknown, i) =>
          parseAs(declaredIndexesSchema, typeof d === 'object' && d !== null ? { ...d, service } : d, `indexes of ${service}[${i}]`),
        );
      }),
    );
    return answers.flat().sort((a, b) => a.service.localeCompare(b.service) || a.collection.localeCompare(b.collection));
  }

  async status(collection: string): Promise<IndexStatus> {
    const { service, name, replica } = await this.owner(collection);
    return parseAs(
      indexStatusSchema,
      await this.replicas.send(replica, { command: 'indexStatus', collection: name }, TIMEOUTS_MS.lifecycle),
      `index status of ${service}.${name}`,
    );
  }

  async create(collection: string): Promise<IndexCreation> {
    const { service, name, replica } = await this.owner(collection);
    return parseAs(
      indexCreationSchema,
      await this.replicas.send(replica, { command: 'createIndexes', collection: name }, TIMEOUTS_MS.long),
      `index creation of ${service}.${name}`,
    );
  }

  /**
   * The service that declares `collection` (`<service>.<collection>` names it outright) and one of its
   * replicas. 404 when nobody declares it; 400 when several services do and the name does not say which.
   */
  private async owner(collection: string): Promise<{ service: ServiceName; name: string; replica: Replica }> {
    const dot = collection.indexOf('.');
    const prefix = dot > 0 ? collection.slice(0, dot) : '';
    if (isServiceName(prefix)) {
      const replica = (await this.replicaPerService(prefix)).get(prefix);
      if (replica === undefined)
        throw new AppError('SERVICE_UNAVAILABLE', `No replica of ${prefix} answers; its indexes cannot be read until it runs`);
      return { service: prefix, name: collection.slice(dot + 1), replica };
    }
    const declared = await this.declared();
    const owners = declared.filter((d) => d.collection === collection).map((d) => d.service);
    const [only] = owners;
    if (only === undefined) {
      const known = declared.map((d) => d.collection);
      throw new AppError(
        'INDEX_COLLECTION_NOT_FOUND',
        `No service declares indexes for collection "${collection}"; collections with declared indexes: ${[...new Set(known)].join(', ')}`,
      );
    }
    if (owners.length > 1)
      throw invalidMember(
        'params.collection',
        `"${collection}" is declared by ${owners.join(' and ')}; name it as <service>.${collection}`,
      );
    const replica = (await this.replicaPerService(only)).get(only);
    if (replica === undefined) throw new AppError('SERVICE_UNAVAILABLE', `No replica of ${only} answers`);
    return { service: only, name: collection, replica };
  }

  /** One replica per service (a running one when there is one: a paused replica answers its control channel too). */
  private async replicaPerService(service?: ServiceName): Promise<Map<ServiceName, Replica>> {
    const out = new Map<ServiceName, Replica>();
    for (const replica of await this.replicas.discover(service)) {
      const chosen = out.get(replica.service);
      if (chosen === undefined || (chosen.state === 'paused' && replica.state === 'running')) out.set(replica.service, replica);
    }
    return new Map(
      SERVICE_NAMES.flatMap((name) => {
        const r = out.get(name);
        return r === undefined ? [] : [[name, r] as const];
      }),
    );
  }
}
