// Every stream name in one place: `<category>-<id>`.
export const streams = {
  user: (id: string) => `user-${id}`,
  workspace: (id: string) => `workspace-${id}`,
  member: (workspaceId: string, userId: string) => `member-${workspaceId}_${userId}`,
  accessToken: (id: string) => `token-${id}`,
  apiKey: (id: string) => `apikey-${id}`,
  reservation: (scope: string, key: string) => `reservation-${scope}:${key}`,
}
