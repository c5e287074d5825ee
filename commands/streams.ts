// Every stream name in one place: `<category>-<id>`.
export const streams = {
  user: (id: string) => `user-${id}`,
  workspace: (id: string) => `workspace-${id}`,
  member: (workspaceId: string, userId: string) => `member-${workspaceId}_${userId}`,
  accessToken: (id: string) => `token-${id}`,
  apiKey: (id: string) => `apikey-${id}`,
  oauthClient: (id: string) => `oauthclient-${id}`,
  oauthGrant: (id: string) => `oauthgrant-${id}`,
  entry: (id: string) => `entry-${id}`,
  folder: (id: string) => `folder-${id}`,
  kbConfig: (workspaceId: string) => `kbconfig-${workspaceId}`,
  search: (id: string) => `search-${id}`,
  task: (id: string) => `task-${id}`,
  reembed: (workspaceId: string) => `reembed-${workspaceId}`,
  page: (id: string) => `page-${id}`,
  collection: (id: string) => `collection-${id}`,
  proposal: (id: string) => `proposal-${id}`,
  reservation: (scope: string, key: string) => `reservation-${scope}:${key}`,
  webhook: (id: string) => `webhook-${id}`,
  /** A webhook's delivery attempts, apart from its own stream so that loading it stays short. */
  webhookDeliveries: (id: string) => `webhookdeliveries-${id}`,
  undo: (id: string) => `undo-${id}`,
  /** A projection rebuild's replay of the logged queries, and its verdict on the cut-over. */
  rebuild: (id: string) => `rebuild-${id}`,
}

const CATEGORY_NAMES = [
  'user',
  'workspace',
  'member',
  'token',
  'apikey',
  'oauthclient',
  'oauthgrant',
  'entry',
  'folder',
  'kbconfig',
  'search',
  'task',
  'reembed',
  'page',
  'collection',
  'proposal',
  'reservation',
  'webhook',
  'webhookdeliveries',
  'undo',
  'rebuild',
]
/**
 * The categories of the knowledge and pages every member of a workspace may read through the API
 * (entries, folders, tasks, the configuration, pages, collections, proposals): what a member who
 * does not manage the workspace sees of its event stream.
 */
export const MEMBER_CATEGORIES = ['entry', 'folder', 'task', 'kbconfig', 'page', 'collection', 'proposal']

const CATEGORIES = new RegExp(`^(${CATEGORY_NAMES.join('|')})-`)

/**
 * The streams an operator may mean by an id: the id itself when it names its category
 * (`entry-<id>`), else the streams of the things people look up by a bare id, in that order.
 */
export const streamCandidates = (id: string) =>
  CATEGORIES.test(id)
    ? [id]
    : [
        streams.entry(id),
        streams.page(id),
        streams.task(id),
        streams.folder(id),
        streams.collection(id),
        streams.proposal(id),
      ]
