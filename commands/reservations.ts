import * as E from 'fp-ts/Either'
import type { EventStore } from '../adapters/eventstore/port'
import { reservation } from '../domain/reservation'
import type { DomainError } from '../domain/shared'
import { type CommandContext, aggregate } from './handle'
import { type StreamCategory, category } from './streams'

/** Reservation streams, one per scope and key. */
export const reservations = aggregate(
  reservation,
  category('reservation', (scope: string, key: string) => `${scope}:${key}`),
)

/** The reservations' category, every capability's: read by those who manage the workspace. */
export const reservationStreams: StreamCategory[] = [reservations]

/** The key of a name unique in its scope: case and surrounding spaces do not count. */
export const nameKey = (name: string) => name.trim().toLowerCase()

/**
 * Claims a unique key for an owner through its reservation stream. A holder whose own stream
 * still does not exist a while later (a crash between the reservation and the creation) loses
 * the key to the claimant.
 */
export const reserve = async (
  store: EventStore,
  ctx: CommandContext,
  scope: string,
  key: string,
  ownerId: string,
  ownerStream: (ownerId: string) => string,
): Promise<E.Either<DomainError, void>> => {
  const reserved = reservations.on(store, scope, key)
  const { state } = await reserved.load()
  const holderExists =
    state.ownerId !== null && (await store.streamRevision(ownerStream(state.ownerId))) !== 'no_stream'
  const result = await reserved.handle({ type: 'Reserve', data: { key, ownerId, holderExists, at: ctx.at } }, ctx)
  return E.map(() => undefined)(result)
}

export const release = async (store: EventStore, ctx: CommandContext, scope: string, key: string, ownerId: string) => {
  await reservations.on(store, scope, key).handle({ type: 'Release', data: { key, ownerId } }, ctx)
}
