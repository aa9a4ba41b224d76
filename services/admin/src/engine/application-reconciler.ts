import { SERVICE_NAMES, instanceStatusSchema, isValid } from '@nap/contracts';
import type { InstanceStatus, ServiceName } from '@nap/contracts';
import type { Subscription } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import type { Replicas } from '../clients/replicas';
import { configureCommand, desiredOf, inSyncOf } from '../domain/applications';
import type { ApplicationsView, Desired, ProfileLiveSettings, Replica, ReplicaOutcome } from '../domain/applications';
import type { ApplicationStateRepository } from '../store/application-states';

export interface ApplicationReconcilerOptions {
  /** How often replicas are brought to their desired state (new replicas, a missed change), ms; default 2000. */
  reconcileIntervalMs?: number;
  /** How long a replica may take to answer a control command, ms (a stop waits for its requests in flight); default 30000. */
  controlTimeoutMs?: number;
  /** The live settings of the active profile. */
  profile: () => Promise<ProfileLiveSettings>;
}

/** How long a replica may take to report its status, ms. */
const STATUS_TIMEOUT_MS = 1_500;

/**
 * Keeps every replica of every service in its desired state (what operators set, over the active
 * profile's live settings): at once on a change (`push`), when a replica starts and asks, and
 * every `reconcileIntervalMs` for replicas that could not ask or missed a change.
 */
export class ApplicationReconciler {
  /** Replica instance → the desired-state key it last confirmed. */
  private readonly configured = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private reconciling: Promise<void> | undefined;
  private desiredSubscription: Subscription | undefined;
  private readonly controlTimeoutMs: number;

  constructor(
    private readonly states: ApplicationStateRepository,
    private readonly replicas: Replicas,
    private readonly log: Logger,
    private readonly options: ApplicationReconcilerOptions,
  ) {
    this.controlTimeoutMs = options.controlTimeoutMs ?? 30_000;
  }

  /** Stores a record for each service that has none, then keeps replicas in step. */
  async start(): Promise<void> {
    await this.states.ensure(SERVICE_NAMES, new Date().toISOString());
    // a replica asks before it registers: one of a stopped application starts paused
    this.desiredSubscription = this.replicas.answerDesiredState(async (service) => configureCommand(await this.desired(service)), this.log);
    const interval = this.options.reconcileIntervalMs ?? 2_000;
    this.timer = setInterval(() => void this.reconcile(), interval);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    await this.desiredSubscription?.unsubscribe();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.reconciling;
  }

  /** Brings every replica to its service's desired state; replicas that confirmed the current state are left alone. */
  reconcile(): Promise<void> {
    this.reconciling ??= (async () => {
      try {
        const replicas = await this.replicas.discover();
        const desired = new Map<ServiceName, Desired>();
        for (const replica of replicas) {
          let want = desired.get(replica.service);
          if (want === undefined) {
            want = await this.desired(replica.service);
            desired.set(replica.service, want);
          }
          if (this.configured.get(replica.instance) === want.key) continue;
          const [outcome] = await this.replicas.sendAll([replica], configureCommand(want), this.controlTimeoutMs);
          if (outcome?.ok) this.configured.set(replica.instance, want.key);
          else
            this.log.warn(
              { service: replica.service, instance: replica.instance, err: outcome?.ok === false ? outcome.error : undefined },
              'A replica did not take its configuration; trying again later',
            );
        }
        const present = new Set(replicas.map((r) => r.instance));
        for (const instance of this.configured.keys()) if (!present.has(instance)) this.configured.delete(instance);
      } catch (err) {
        this.log.warn({ err }, 'Reconciling the replicas failed; trying again later');
      } finally {
        this.reconciling = undefined;
      }
    })();
    return this.reconciling;
  }

  /** Sends the service's desired state to each of its replicas now; the outcome of each. */
  async push(service: ServiceName): Promise<ReplicaOutcome<unknown>[]> {
    const [replicas, want] = await Promise.all([this.replicas.discover(service), this.desired(service)]);
    const outcomes = await this.replicas.sendAll(replicas, configureCommand(want), this.controlTimeoutMs);
    for (const o of outcomes) if (o.ok) this.configured.set(o.replica.instance, want.key);
    return outcomes;
  }

  /** Sends every service's desired state to its replicas now (the active profile changed); true when every replica took it. */
  async pushAll(): Promise<boolean> {
    return (await Promise.all(SERVICE_NAMES.map((s) => this.push(s)))).flat().every((o) => o.ok);
  }

  /** Pauses these replicas (each finishes the requests it holds): the first half of a restart. */
  pause(replicas: Replica[], revision: number): Promise<ReplicaOutcome<unknown>[]> {
    return this.replicas.sendAll(replicas, { command: 'configure', revision, paused: true }, this.controlTimeoutMs);
  }

  /** True when every replica of every service answers that it is as it should be. */
  async inSync(): Promise<boolean> {
    const view = await this.view();
    return SERVICE_NAMES.every((service) => inSyncOf(service, view));
  }

  /** Discovery and each replica's own account of itself, with what each service (or one) should be. */
  async view(only?: ServiceName): Promise<ApplicationsView> {
    const [replicas, states] = await Promise.all([this.replicas.discover(only), this.states.all()]);
    const outcomes = await this.replicas.sendAll(replicas, { command: 'status' }, STATUS_TIMEOUT_MS);
    const statuses = new Map<string, InstanceStatus>();
    for (const o of outcomes) if (o.ok && isValid(instanceStatusSchema, o.result)) statuses.set(o.replica.instance, o.result);
    const desired = new Map<ServiceName, Desired>();
    for (const service of only === undefined ? SERVICE_NAMES : [only]) desired.set(service, await this.desired(service));
    return { replicas, states, statuses, desired };
  }

  private async desired(service: ServiceName): Promise<Desired> {
    const [state, profile] = await Promise.all([this.states.get(service), this.options.profile()]);
    return desiredOf(service, state, profile);
  }
}
