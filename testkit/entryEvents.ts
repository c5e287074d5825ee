/**
 * An entry's creation as projector specs write it: one chunk over the whole content, in workspace
 * ws-1, tagged "burrow", by user-1; at revision 0 of the entry's stream.
 */
export const entryCreated = (id: string, title: string, content: string) => ({
  type: 'EntryCreated',
  data: {
    entryId: id,
    workspaceId: 'ws-1',
    title,
    content,
    source: 'manual',
    metadata: { tags: ['burrow'] },
    externalReferenceIds: {},
    folderId: null,
    isEnabled: true,
    chunking: { chunkSizeTokens: 1000, overlapTokens: 200, preserveSentences: true },
    embed: true,
    tokenCount: 4,
    chunks: [{ start: 0, end: content.length, tokenCount: 4 }],
    createdBy: 'user-1',
  },
  streamId: `entry-${id}`,
  revision: 0,
})
