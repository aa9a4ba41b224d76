import type { Static } from '@sinclair/typebox';
import { anyValue, arr, bool, closed, embed, int, nullable, obj, oneOf, str, withId } from './common';
import { AUDIT_ENTRY_SCHEMA_ID } from '../audit';
import { listQuerySchema } from './query';

/**
 * The audit trail's record: who did what to which thing, with which outcome, from where, and what
 * changed. Records are appended by the admin service into one hash chain for the whole platform.
 */

/**
 * How the actor of a request proved who it is: a Bearer token, the `token` cookie, `?token=`, Basic
 * credentials, a username and password (`POST /login`), the client credentials grant
 * (`POST /oauth/token`) or an identity provider through the browser (`GET /sso/callback`,
 * `POST /sso/saml/acs`). `none` when the request carried no credentials.
 */
export const AUDIT_AUTH_METHODS = ['bearer', 'cookie', 'query', 'basic', 'password', 'oauth', 'sso', 'none'] as const;
export type AuditAuthMethod = (typeof AUDIT_AUTH_METHODS)[number];

/**
 * The platform's own actors: a schedule trigger firing, an event trigger starting its automation, a
 * retention run. A platform actor acts on behalf of the account named in `onBehalfOf`, when there is one.
 */
export const PLATFORM_ACTORS = ['schedule', 'trigger', 'retention'] as const;
export type PlatformActor = (typeof PLATFORM_ACTORS)[number];

const auditActorSchema = closed(
  {
    kind: oneOf(['account', 'platform', 'anonymous'], {
      description: 'account: a person or client with credentials; platform: the platform acting on its own; anonymous: unknown credentials',
    }),
    username: str({
      description: 'the account, or the username the credentials named; for a platform actor its name (schedule, trigger, retention)',
    }),
    accountId: str({ description: 'account id, when known' }),
    auth: oneOf(AUDIT_AUTH_METHODS, { description: 'how the actor authenticated' }),
    onBehalfOf: str({ description: 'platform actors: the username of the account the action runs as (a schedule runs as its creator)' }),
  },
  ['kind', 'username'],
);

const auditTargetSchema = closed(
  {
    kind: str({ description: 'what was acted on: group, account, workflow, job, adapter, session, …' }),
    id: str(),
    name: str(),
  },
  ['kind'],
);

/** One changed member of an update: its path and its values before and after, masked by the secret policy. */
export const auditChangeSchema = closed(
  {
    member: str({ description: 'dotted path of the member (properties.host)' }),
    before: anyValue({ description: 'value before; absent when the member was added; ******** for secrets' }),
    after: anyValue({ description: 'value after; absent when the member was removed; ******** for secrets' }),
    secret: bool({ description: 'true when the member holds a secret: that it changed is all the record says' }),
    digest: bool({ description: 'true when the values were too large to keep: before and after are their SHA-256 digests' }),
  },
  ['member'],
);
export type AuditChange = Static<typeof auditChangeSchema>;

/** The members of an audit record that its author sets; the chain adds `seq`, `prevHash` and `hash`. */
function entryProperties() {
  return {
    entryId: str({ description: 'unique id given by whoever recorded it; a record is appended once per entryId' }),
    timestamp: str({ description: 'ISO 8601, when the answer was decided' }),
    actor: auditActorSchema,
    operation: str({ description: 'catalog operation id (admin.createGroup), or the platform action (workflow.runSchedule)' }),
    method: str({ description: 'HTTP method; PLATFORM for a platform action' }),
    route: str({ description: 'the route as the catalog writes it (/user-management/groups/:groupId)' }),
    target: auditTargetSchema,
    outcome: closed(
      {
        status: int({ description: 'HTTP status answered' }),
        code: str({ description: 'error code of a failure (contracts errors table)' }),
      },
      ['status'],
    ),
    requestId: str(),
    source: closed({ address: str({ description: 'client address' }), userAgent: str() }),
    changes: arr(auditChangeSchema, { description: 'updates: the members that changed' }),
  };
}

/** What is submitted to the audit trail (by the gateway, or by a service for a platform actor). */
export const auditEntrySchema = withId(
  AUDIT_ENTRY_SCHEMA_ID,
  closed(entryProperties(), ['entryId', 'timestamp', 'actor', 'operation', 'method', 'outcome']),
);
export type AuditEntry = Static<typeof auditEntrySchema>;

/** A record of the audit trail, as `GET /audit` and the `auditRecorded` event answer it. */
export const auditRecordSchema = withId(
  'nap:schemas/audit-record',
  closed(
    {
      seq: int({ minimum: 1, description: 'position in the chain, from 1, without gaps' }),
      ...entryProperties(),
      prevHash: str({ description: 'hash of the record before (64 zeros for the first)' }),
      hash: str({
        description: 'SHA-256 (hex) of the RFC 8785 canonical JSON of the record without its hash member',
      }),
    },
    ['seq', 'entryId', 'timestamp', 'actor', 'operation', 'method', 'outcome', 'prevHash', 'hash'],
  ),
);
export type AuditRecord = Static<typeof auditRecordSchema>;

/**
 * What a service hands back with its answer: the target as it knows it, and the members it changed;
 * or, for a request that acts on several things (a cancel of several jobs, an import), `each`:
 * one record per thing, with its target and changes.
 */
export type AuditPart = Pick<AuditEntry, 'target' | 'changes'> & { each?: Pick<AuditEntry, 'target' | 'changes'>[] };

/** The query of `GET /audit`: the shared list options, and the audit's own filters; no other member (refused, named). */
export const auditQuerySchema = withId(
  'nap:schemas/audit-query',
  closed({
    ...embed(listQuerySchema).properties,
    actor: str({ description: 'the username, or a platform actor (schedule, trigger, retention)' }),
    operation: str({ description: 'catalog operation id' }),
    targetId: str(),
    outcome: str({ description: 'an HTTP status (403), an error code (FORBIDDEN), success (< 400) or failure (>= 400)' }),
    since: str({ format: 'date-time', description: 'ISO 8601; records at or after' }),
    until: str({ format: 'date-time', description: 'ISO 8601; records before' }),
  }),
);

/** The query of `GET /audit/export`. */
export const auditExportQuerySchema = withId(
  'nap:schemas/audit-export-query',
  closed({
    since: str({ format: 'date-time', description: 'ISO 8601; records at or after' }),
    until: str({ format: 'date-time', description: 'ISO 8601; records before' }),
    afterSeq: int({ minimum: 0, description: 'resume after this seq (the last line received)' }),
    limit: int({ minimum: 1, maximum: 1000, description: 'records in one answer on the bus; the gateway pages through them all' }),
  }),
);

/** The answer of `GET /audit/verify`. */
export const auditVerificationSchema = withId(
  'nap:schemas/audit-verification',
  closed(
    {
      valid: bool(),
      checked: int({ minimum: 0, description: 'records checked' }),
      firstBroken: nullable(int({ description: 'seq of the first record whose hash, link or place in the chain is wrong' })),
      reason: str({ description: 'what is wrong with firstBroken' }),
      from: int({ description: 'seq of the first record kept (older ones were removed by retention)' }),
    },
    ['valid', 'checked', 'firstBroken'],
  ),
);
export type AuditVerification = Static<typeof auditVerificationSchema>;

/** `{ results, total }` of `GET /audit`. */
export const auditPageSchema = obj({ results: arr(embed(auditRecordSchema)), total: int({ minimum: 0 }) }, ['results', 'total']);
