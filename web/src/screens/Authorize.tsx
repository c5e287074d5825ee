import { Alert, Button, Checkbox, Code, Group, Paper, Select, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { type ApiError, answer, client } from '../api'
import { ErrorAlert, LoadState } from '../components'
import type { paths } from '../schema'
import { useSession } from '../session'
import { asApiError, useApi } from '../useApi'

type Request = paths['/api/v1/oauth/authorize']['get']['parameters']['query']

/** The authorization request as /oauth/authorize handed it to the console: in the page's query. */
const requestOf = (search: string) => Object.fromEntries(new URLSearchParams(search)) as unknown as Request

/** Where the browser goes back to, as the person should read it: a web site's origin, or an app's URI. */
const destination = (uri: string) => {
  const url = new URL(uri)
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : uri.split('?')[0]
}

const SCOPE_TEXT: Record<string, string> = {
  'kb:read': 'Read: search and read the knowledge entries and pages',
  'kb:write': 'Write: write pages and entries, as an agent',
}

/**
 * Where a person grants an MCP client access (OAuth's consent): who asks, for which workspace, to do what. Allowing
 * or refusing sends the browser back to the client, with a code or with the refusal.
 */
export const AuthorizeScreen = () => {
  const { me } = useSession()
  const [request] = useState(() => requestOf(window.location.search))
  const view = useApi(['oauth-authorize', JSON.stringify(request)], () =>
    answer(client.GET('/api/v1/oauth/authorize', { params: { query: request } })),
  )
  const [workspaceId, setWorkspaceId] = useState(me?.current_workspace.id)
  const [write, setWrite] = useState(true)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError>()
  const role = me?.workspaces.find((w) => w.id === workspaceId)?.role
  const canWrite = role !== undefined && role !== 'viewer'
  const decide = async (approve: boolean, asked: string[]) => {
    setBusy(true)
    setError(undefined)
    try {
      const scopes = asked.filter((s) => s === 'kb:read' || (s === 'kb:write' && write && canWrite))
      const done = await answer(
        client.POST('/api/v1/oauth/grants', {
          body: { request, approve, ...(approve ? { workspaceId, scopes } : {}) },
        }),
      )
      window.location.assign(done.redirectTo)
    } catch (err) {
      setError(asApiError(err))
      setBusy(false)
    }
  }
  return (
    <Stack maw={560}>
      <Title order={2}>Grant access to an MCP client</Title>
      <LoadState loaded={view} empty="" isEmpty={() => false}>
        {(v) => (
          <Paper withBorder p="md">
            <Stack>
              <Text>
                <strong data-testid="client-name">{v.client.name}</strong> asks to use a knowledge base of yours through
                MCP. It will be sent back to <Code>{destination(v.redirectUri)}</Code>.
              </Text>
              <Select
                label="Workspace to grant"
                data={(me?.workspaces ?? []).map((w) => ({ value: w.id, label: `${w.name} (${w.role})` }))}
                value={workspaceId}
                allowDeselect={false}
                onChange={(id) => id && setWorkspaceId(id)}
              />
              <Stack gap={6}>
                {v.scopes.map((s) => (
                  <Checkbox
                    key={s}
                    label={SCOPE_TEXT[s] ?? s}
                    checked={s === 'kb:read' || (write && canWrite)}
                    disabled={s === 'kb:read' || !canWrite}
                    onChange={(e) => setWrite(e.currentTarget.checked)}
                  />
                ))}
              </Stack>
              {v.scopes.includes('kb:write') && !canWrite && (
                <Alert color="gray">As a viewer of this workspace you can grant reading only.</Alert>
              )}
              <Text size="sm" c="dimmed">
                You can revoke this access at any time under Settings, Access for agents.
              </Text>
              {error && <ErrorAlert error={error} title="The access was not granted" />}
              <Group>
                <Button loading={busy} onClick={() => decide(true, v.scopes)}>
                  Allow
                </Button>
                <Button variant="default" disabled={busy} onClick={() => decide(false, v.scopes)}>
                  Deny
                </Button>
              </Group>
            </Stack>
          </Paper>
        )}
      </LoadState>
    </Stack>
  )
}
