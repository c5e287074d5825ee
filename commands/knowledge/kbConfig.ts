import * as E from 'fp-ts/Either'
import type { EventStore } from '../../adapters/eventstore/port'
import { type KbConfig, type KbConfigChanges, kbConfig } from '../../domain/knowledge/kbConfig'
import type { DomainError } from '../../domain/shared'
import { type CommandContext, handle, load } from '../handle'
import { streams } from '../streams'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

export const loadKbConfig = async (store: EventStore, workspaceId: string): Promise<KbConfig> =>
  (await load(store, streams.kbConfig(workspaceId), kbConfig)).state

export const changeKbConfig = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  changes: KbConfigChanges,
): Result<{ config: KbConfig }> => {
  const done = await handle(
    store,
    streams.kbConfig(workspaceId),
    kbConfig,
    { type: 'ChangeKbConfig', data: { workspaceId, changes } },
    ctx,
  )
  if (E.isLeft(done)) return done
  return E.right({ config: await loadKbConfig(store, workspaceId), position: done.right.position })
}
