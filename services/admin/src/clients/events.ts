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
    // an adapter is named by people ("NSO lab 1.2"): its name stands in the subject percent-encoded
    return this.publish('adapter', subjectIdOf(payload.name), 'adapterChanged', payload);
  }

  private async publish(entity: string, id: string, event: string, payload: object): Promise<void> {
    // the payload schemas of contracts are the promise to subscribers: never publish one that breaks it
    const problems = validateEvent(getEvent('admin', entity, event), payload);
    if (problems.length > 0)
      throw new AppError('INTERNAL', `Event ${entity}.${event} does not match its schema: ${problems.map((p) => p.message).join('; ')}`);
    await this.bus.publishEvent(eventSubject('admin', entity, id, event), Buffer.from(JSON.stringify(payload)));
  }
}

/** What splits or widens a subject (white space, `.`, `*`, `>`), and `%`, which encodes them. */
const NOT_IN_SUBJECT_ID = /[\s.*>%]/gu;

/**
 * A name as one token of an event subject: as it is when it can be one, else each character that
 * cannot (and `%`) as the `%XX` of its UTF-8 bytes (`NSO lab 1.2` → `NSO%20lab%201%2E2`), so that
 * no name is refused an event and two names never share a subject. The payload keeps the name.
 */
export function subjectIdOf(name: string): string {
  return name.replace(NOT_IN_SUBJECT_ID, (ch) =>
    [...Buffer.from(ch, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}
