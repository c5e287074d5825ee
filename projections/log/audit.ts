import type { Client } from '../../adapters/db'
import { type RecordedEvent, actorId } from '../../adapters/eventstore/port'
import type { Projector } from '../projector'

/** A webhook URL often is a credential itself (a chat hook's path): the trail shows its origin. */
const originOf = (url: unknown) => {
  try {
    return `${new URL(String(url)).origin}/…`
  } catch {
    return '…'
  }
}

/**
 * Secrets and their hashes stay in the event store; the audit trail (and so the event stream and
 * webhook payloads) shows that a secret was issued, and where a webhook points, not its path.
 */
const withoutHashes = (type: string, data: unknown) =>
  data && typeof data === 'object'
    ? Object.fromEntries(
        Object.entries(data)
          .filter(([k]) => !/Hash$/.test(k) && k !== 'secret')
          .map(([k, v]) => (type === 'WebhookRegistered' && k === 'url' ? [k, originOf(v)] : [k, v])),
      )
    : data

/** Every event that belongs to a workspace, for its owners' and admins' audit trail. */
export const auditProjector: Projector = {
  name: 'audit',
  version: 5,
  tables: ['audit_events'],
  schema: `
    CREATE TABLE audit_events (
      position bigint PRIMARY KEY, workspace_id text NOT NULL, stream_id text NOT NULL, revision bigint NOT NULL,
      event_id text NOT NULL, type text NOT NULL, actor jsonb NOT NULL, actor_id text NOT NULL,
      data jsonb NOT NULL, metadata jsonb NOT NULL, time timestamptz NOT NULL);
    CREATE INDEX audit_events_workspace ON audit_events (workspace_id, position);
    CREATE INDEX audit_events_stream ON audit_events (workspace_id, stream_id, position);
    CREATE INDEX audit_events_time ON audit_events (workspace_id, time);
  `,
  handles: 'all',
  apply(tx: Client, e: RecordedEvent) {
    return this.applyEvents!(tx, [e])
  },
  async applyEvents(tx: Client, events: RecordedEvent[]) {
    const rows = events.filter((e) => e.metadata.workspaceId)
    if (rows.length === 0) return
    await tx.query(
      `INSERT INTO audit_events (position, workspace_id, stream_id, revision, event_id, type, actor, actor_id, data,
        metadata, time)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::jsonb[],
         $8::text[], $9::jsonb[], $10::jsonb[], $11::timestamptz[])
       ON CONFLICT (position) DO NOTHING`,
      [
        rows.map((e) => e.position),
        rows.map((e) => e.metadata.workspaceId),
        rows.map((e) => e.streamId),
        rows.map((e) => e.revision),
        rows.map((e) => e.id),
        rows.map((e) => e.type),
        rows.map((e) => JSON.stringify(e.metadata.actor)),
        rows.map((e) => actorId(e.metadata.actor)),
        rows.map((e) => JSON.stringify(withoutHashes(e.type, e.data))),
        rows.map((e) => JSON.stringify(e.metadata)),
        rows.map((e) => e.time),
      ],
    )
    // A deleted entry's stream is cut to its tombstone in the store; its audit rows follow, so the
    // trail keeps who deleted it and when, and equals a rebuild.
    for (const e of rows) {
      if (e.type === 'EntryDeleted')
        await tx.query('DELETE FROM audit_events WHERE stream_id = $1 AND position < $2', [e.streamId, e.position])
    }
  },
}
