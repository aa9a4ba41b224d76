import {
  AppError,
  controlReplySchema,
  controlSubject,
  desiredStateRequestSchema,
  desiredStateSubject,
  isAppError,
  isServiceName,
  parseAs,
} from '@nap/contracts';
import type { ControlCommand, ControlReply, ServiceName } from '@nap/contracts';
import { PAUSED_METADATA_KEY, REGISTRATION_METADATA_KEY, decodeJson, encodeJson } from '@nap/bus';
import type { Bus, ServiceInfo, ServiceStats, Subscription } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { errorMessage } from '@nap/util';
import type { Replica, ReplicaOutcome } from '../domain/applications';

/** How long discovery gathers answers, ms. */
const DISCOVER_MS = 400;

/**
 * The replicas of the platform's services, found by live discovery (`$SRV.INFO` on NATS, the
 * broker's registry in memory), their control channels (`nap.sys.control.<instance>`), and the
 * question a starting replica asks before it registers (`nap.sys.applications.desired`).
 */
export class Replicas {
  constructor(private readonly bus: Bus) {}

  /**
   * Every replica of the six services (or of one), running or paused, once each: a replica that
   * pauses or resumes answers discovery from its old and its new registration for a moment, and
   * only the newer one tells its state.
   */
  async discover(service?: ServiceName): Promise<Replica[]> {
    const infos = await this.bus.discover(service, DISCOVER_MS);
    const newest = new Map<string, ServiceInfo>();
    for (const info of infos) {
      const instance = info.metadata.instance;
      if (!isServiceName(info.name) || instance === undefined || instance === '') continue;
      const seen = newest.get(instance);
      if (seen === undefined || registrationOf(info) > registrationOf(seen)) newest.set(instance, info);
    }
    return infos.flatMap((info) => {
      const replica = newest.get(info.metadata.instance ?? '') === info ? toReplica(info) : undefined;
      return replica === undefined ? [] : [replica];
    });
  }

  /** `$SRV.STATS` of the replicas of the six services (or of one). */
  async stats(service?: ServiceName): Promise<ServiceStats[]> {
    return (await this.bus.stats(service, DISCOVER_MS)).filter((s) => isServiceName(s.name));
  }

  /** Sends one command to one replica; the answer's result, or the error the replica (or the bus) gave. */
  async send(replica: Replica, command: ControlCommand, timeoutMs: number): Promise<unknown> {
    const reply = await this.bus.request(controlSubject(replica.instance), encodeJson(command), { timeoutMs });
    const answer = parseAs(controlReplySchema, decodeJson(reply.data), 'control reply');
    if (answer.ok) return answer.result;
    throw new AppError(
      answer.error.code,
      answer.error.message,
      answer.error.details === undefined ? {} : { details: answer.error.details },
    );
  }

  /** Sends a command to every replica at once and gathers each outcome (never rejects). */
  async sendAll(replicas: Replica[], command: ControlCommand, timeoutMs: number): Promise<ReplicaOutcome<unknown>[]> {
    return Promise.all(
      replicas.map(async (replica): Promise<ReplicaOutcome<unknown>> => {
        try {
          return { replica, ok: true, result: await this.send(replica, command, timeoutMs) };
        } catch (err) {
          return {
            replica,
            ok: false,
            error: isAppError(err) ? err : new AppError('INTERNAL', errorMessage(err)),
          };
        }
      }),
    );
  }

  /**
   * Answers starting replicas' question for their service's desired state with `answer` (one admin
   * replica answers each: queue group `admin`). A failure is answered as an error, and logged
   * unless it is an `AppError`.
   */
  answerDesiredState(answer: (service: ServiceName) => Promise<unknown>, log: Logger): Subscription {
    const reply = async (data: Uint8Array): Promise<ControlReply> => {
      try {
        const { service } = parseAs(desiredStateRequestSchema, decodeJson(data), 'desired state request');
        return { ok: true, result: await answer(service) };
      } catch (err) {
        const error = isAppError(err) ? err : new AppError('INTERNAL', errorMessage(err));
        if (!isAppError(err)) log.error({ err }, 'Could not answer the desired state of a service');
        return { ok: false, error: { code: error.code, message: error.message } };
      }
    };
    return this.bus.subscribe(
      desiredStateSubject(),
      (msg) => {
        void reply(msg.data).then((r) => msg.reply?.(encodeJson(r)));
      },
      { queue: 'admin' },
    );
  }
}

/** The number of the registration `info` comes from (0 from a replica older than the number). */
function registrationOf(info: ServiceInfo): number {
  const n = Number(info.metadata[REGISTRATION_METADATA_KEY]);
  return Number.isSafeInteger(n) ? n : 0;
}

function toReplica(info: ServiceInfo): Replica | undefined {
  if (!isServiceName(info.name)) return undefined;
  const instance = info.metadata.instance;
  if (instance === undefined || instance === '') return undefined;
  return {
    service: info.name,
    id: info.id,
    instance,
    state: info.metadata[PAUSED_METADATA_KEY] === 'true' ? 'paused' : 'running',
    version: info.version,
    started: info.metadata.started ?? '',
    endpoints: info.endpoints.length,
  };
}
