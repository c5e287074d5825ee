import { entry } from '../../domain/knowledge/entry'
import { folder } from '../../domain/knowledge/folder'
import { kbConfig } from '../../domain/knowledge/kbConfig'
import { task } from '../../domain/knowledge/task'
import { aggregate } from '../handle'
import { type StreamCategory, category } from '../streams'

// Knowledge's aggregates, each decider bound to its streams' category.

export const entries = aggregate(entry, category('entry'))
export const folders = aggregate(folder, category('folder'))
export const kbConfigs = aggregate(kbConfig, category('kbconfig'))
export const tasks = aggregate(task, category('task'))

/** Knowledge's categories: every member reads them, and people name entries, tasks and folders by their bare ids. */
export const knowledgeStreams: StreamCategory[] = [
  { category: entries.category, members: true, lookup: true },
  { category: tasks.category, members: true, lookup: true },
  { category: folders.category, members: true, lookup: true },
  { category: kbConfigs.category, members: true },
]
