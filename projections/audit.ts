import type { Client } from '../adapters/db'
import type { RecordedEvent } from '../adapters/eventstore/port'
import type { Projector } from './projector'

const actorId = (actor: RecordedEvent['metadata']['actor']) =>
  actor.kind === 'human' ? actor.userId : actor.kind === 'agent' ? actor.client : actor.process

/** Hashes of secrets stay in the event store; the audit trail shows that a secret was issued. */
const withoutHashes = (data: unknown) =>
  data && typeof data === 'object' ? Object.fromEntries(Object.entries(data).filter(([k]) => !/Hash$/.test(k))) : data

/** Every event that belongs to a workspace, for its owners' and admins' audit trail. */
export const auditProjector: Projector = {
  name: 'audit',
  version: 3,
  tables: ['audit_events'],
  schema: `
    CREATE TABLE audit_events (
      position bigint PRIMARY KEY, workspace_id text NOT NULL, stream_id text NOT NULL, revision bigint NOT NULL,
      event_id text NOT NULL, type text NOT NULL, actor jsonb NOT NULL, actor_id text NOT NULL,
      data jsonb NOT NULL, metadata jsonb NOT NULL, time timestamptz NOT NULL);
    CREATE INDEX audit_events_workspace ON audit_events (workspace_id, position);
    CREATE INDEX audit_events_stream ON audit_events (workspace_id, stream_id, position);
  `,
  handles: 'all',
  async apply(tx: Client, e: RecordedEvent) {
    const workspaceId = e.metadata.workspaceId
    if (!workspaceId) return
    // A deleted entry's stream is cut to its tombstone in the store; its audit rows follow, so the
    // trail keeps who deleted it and when, and equals a rebuild.
    if (e.type === 'EntryDeleted') await tx.query('DELETE FROM audit_events WHERE stream_id = $1 AND position < $2', [e.streamId, e.position])
    await tx.query(
      `INSERT INTO audit_events (position, workspace_id, stream_id, revision, event_id, type, actor, actor_id, data, metadata, time)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (position) DO NOTHING`,
      [e.position, workspaceId, e.streamId, e.revision, e.id, e.type, JSON.stringify(e.metadata.actor), actorId(e.metadata.actor), JSON.stringify(withoutHashes(e.data)), JSON.stringify(e.metadata), e.time],
    )
  },
}
