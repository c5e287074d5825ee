import * as t from 'io-ts'
import { AnyObject } from '../answers'
import * as c from '../codecs'
import { outputSchemaOf } from '../openapi'
import type { Tool } from '../tools'

// What the operators' routes and tool execution answer, as io-ts codecs: each answer is encoded by
// its codec, and the OpenAPI document describes it from the same codec.

const d = c.described

export const Projections = c.object({
  head: d(t.number, 'The log position of the latest event'),
  projections: t.array(
    c.object(
      { name: t.string, position: t.number, lag: t.number },
      {
        state: d(t.string, 'running, rebuilding, waiting, failed, stopped or following'),
        error: c.object({ message: t.string, position: t.number, type: t.string }),
      },
    ),
  ),
})

const Latency = c.object({ p50: d(t.number, 'Milliseconds'), p95: d(t.number, 'Milliseconds') })
const Figures = {
  queries: d(t.number, 'Logged queries asked of both sides'),
  overlap: d(t.number, 'Mean share of the top 10 both sides hold'),
  rbo: d(t.number, 'Mean rank-biased overlap of the two top 10s (p = 0.9)'),
  lostFirst: d(t.number, 'Queries whose first result in service is not first in the rebuilt tables'),
  emptyNow: d(t.number, 'Queries the rebuilt tables answer empty and those in service did not'),
  latency: c.object({ live: Latency, shadow: Latency }),
}
const Judged = {
  judged: d(
    c.object({ questions: t.number, live: t.number, shadow: t.number }),
    'nDCG@10 of each side over the judged questions',
  ),
}
const Ranked = t.array(c.object({ id: t.string, title: t.string }))

export const Rebuilt = c.object(
  { rebuilt: t.array(c.object({ name: t.string, events: t.number, position: t.number, ms: t.number })) },
  {
    replay: d(
      c.object({
        rebuildId: d(t.string, 'Its RebuildReplayed event is in the stream rebuild-<rebuildId>'),
        projections: t.array(t.string),
        verdict: d(t.keyof({ allowed: null, refused: null, forced: null }), 'refused: the tables in service stay'),
        maxLost: t.number,
        skipped: d(t.number, 'Logged queries of a past moment, of content deleted since, or of a disabled base'),
        overall: c.object(Figures, Judged),
        workspaces: t.array(c.object({ workspaceId: t.string, ...Figures }, Judged)),
        changed: d(
          t.array(
            c.object({
              workspaceId: t.string,
              query: t.string,
              mode: t.string,
              overlap: t.number,
              rbo: t.number,
              live: Ranked,
              shadow: Ranked,
            }),
          ),
          'The queries that changed most, side by side (least rank-biased overlap first)',
        ),
      }),
      "The replay of the workspaces' logged queries against the tables in service and the rebuilt ones",
    ),
  },
)

export const Stream = c.object({
  streamId: t.string,
  events: t.array(
    c.object({
      id: t.string,
      type: t.string,
      data: t.unknown,
      metadata: AnyObject,
      streamId: t.string,
      revision: t.number,
      position: t.number,
      time: t.string,
    }),
  ),
})

/**
 * A tool's answer: the tool's own output, already encoded by its codec (each tool's outputSchema
 * is one of the schemas here).
 */
export const toolAnswer = (tools: Tool[]) =>
  c.documented(
    new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
      "a tool's output",
      (u): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u),
      (u, ctx) =>
        typeof u === 'object' && u !== null && !Array.isArray(u)
          ? t.success(u as Record<string, unknown>)
          : t.failure(u, ctx),
      t.identity,
    ),
    { oneOf: tools.map((tool) => ({ title: tool.name, ...outputSchemaOf(tool.output) })) },
  )

/** A dependency's state as /health reports it: `status` (up or down), `kind`, and what it says of itself. */
const Dependency = d(AnyObject, "A dependency's state: status (up or down), kind, and what it says of itself")

export const Health = c.object({
  status: d(t.string, 'ready, degraded or not ready'),
  roles: d(t.array(t.string), 'The roles this process plays (api, projector, worker, scheduler)'),
  leases: d(
    t.record(t.string, t.string),
    'Each lease this process may take (projections, scheduler, webhooks): held or waiting',
  ),
  projectors: d(t.array(t.string), 'The projectors this process runs'),
  dependencies: c.object(
    {},
    {
      database: Dependency,
      jobQueue: d(AnyObject, 'The job queue: its kind, and the jobs written but not yet published'),
      search: d(AnyObject, 'The engines answering searches: text and vectors'),
      embedder: d(AnyObject, "The embedding model, its vectors' length and its threads"),
      eventStore: Dependency,
      blobStore: d(AnyObject, 'The store of uploaded files (local, postgres or s3): up, or down with its reason'),
      projections: t.array(d(AnyObject, "A projector's name, state and position")),
    },
  ),
})
