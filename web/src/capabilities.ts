import type { QueryKey } from '@tanstack/react-query'

/**
 * The console's side of each capability of the service: the reads its events change, by the events' type.
 * The console talks to the service through its API only, so it keeps its own list; a capability whose events
 * change what a screen shows adds its line here.
 */
export const consoleCapabilities: { name: string; changes: Array<[RegExp, QueryKey[]]> }[] = [
  {
    name: 'knowledge',
    changes: [
      [/^Task/, [['tasks'], ['entries'], ['stats']]],
      [/^Entry/, [['entries'], ['stats']]],
      [/^Folder/, [['stats'], ['folders']]],
      [/^KbConfig/, [['config']]],
    ],
  },
  {
    name: 'pages',
    changes: [
      [/^Page/, [['pages']]],
      [/^Proposal/, [['proposals'], ['pages']]],
      [/^Collection/, [['collections'], ['pages']]],
    ],
  },
]
