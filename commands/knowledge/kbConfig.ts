import * as E from 'fp-ts/Either'
import type { EventStore } from '../../adapters/eventstore/port'
import { type KbConfig, type KbConfigChanges } from '../../domain/knowledge/kbConfig'
import type { DomainError } from '../../domain/shared'
import { type CommandContext } from '../handle'
import { kbConfigs } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

export const loadKbConfig = async (store: EventStore, workspaceId: string): Promise<KbConfig> =>
  (await kbConfigs.on(store, workspaceId).load()).state

export const changeKbConfig = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  changes: KbConfigChanges,
): Result<{ config: KbConfig }> => {
  const done = await kbConfigs
    .on(store, workspaceId)
    .handle({ type: 'ChangeKbConfig', data: { workspaceId, changes } }, ctx)
  if (E.isLeft(done)) return done
  return E.right({ config: await loadKbConfig(store, workspaceId), position: done.right.position })
}
