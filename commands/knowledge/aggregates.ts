import { entry } from '../../domain/knowledge/entry'
import { folder } from '../../domain/knowledge/folder'
import { kbConfig } from '../../domain/knowledge/kbConfig'
import { task } from '../../domain/knowledge/task'
import { aggregate } from '../handle'
import { streams } from '../streams'

// Knowledge's aggregates, each decider bound to its streams' name.

export const entries = aggregate(entry, streams.entry)
export const folders = aggregate(folder, streams.folder)
export const kbConfigs = aggregate(kbConfig, streams.kbConfig)
export const tasks = aggregate(task, streams.task)
