import { AppError, eventSubject, getEvent, validateEvent } from '@nap/contracts';
import type { AccountChangedEvent, AdapterChangedEvent, GroupChangedEvent, SessionRevokedEvent } from '@nap/contracts';
import type { Bus } from '@nap/bus';

/**
 * The admin service's durable events (`nap.evt.admin.<entity>.<id>.<event>`, payload schemas in
 * contracts' EVENTS): gateways revoke cached sessions on the account, group and session events;
 * services that cache adapter records drop theirs on `adapterChanged`.
 */
export class AdminEvents {
  constructor(private readonly bus: Bus) {}

  accountChanged(payload: AccountChangedEvent): Promise<void> {
    return this.publish('account', payload.accountId, 'accountChanged', payload);
  }

  groupChanged(payload: GroupChangedEvent): Promise<void> {
    return this.publish('group', payload.groupId, 'groupChanged', payload);
  }

  sessionRevoked(payload: SessionRevokedEvent): Promise<void> {
    return this.publish('session', payload.sid, 'sessionRevoked', payload);
  }

  adapterChanged(payload: AdapterChangedEvent): Promise<void> {
    return this.publish('adapter', payload.name, 'adapterChanged', payload);
  }

  private async publish(entity: string, id: string, event: string, payload: object): Promise<void> {
    // the payload schemas of contracts are the promise to subscribers: never publish one that breaks it
    const problems = validateEvent(getEvent('admin', entity, event), payload);
    if (problems.length > 0)
      throw new AppError('INTERNAL', `Event ${entity}.${event} does not match its schema: ${problems.map((p) => p.message).join('; ')}`);
    await this.bus.publishEvent(eventSubject('admin', entity, id, event), Buffer.from(JSON.stringify(payload)));
  }
}
