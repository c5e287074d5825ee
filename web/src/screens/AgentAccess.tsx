import { Badge, Button, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { answer, client } from '../api'
import { LoadState, when } from '../components'
import { useSession } from '../session'
import { act, useApi } from '../useApi'

const Status = ({ status }: { status: string }) => (
  <Badge size="sm" color={status === 'revoked' ? 'gray' : status === 'active' ? 'green' : 'blue'}>
    {status}
  </Badge>
)

/** Revokes one access, says so, and reloads its list. */
const Revoke = ({
  what,
  run,
  said,
  list,
}: {
  what: string
  run: () => Promise<unknown>
  said: string
  list: string
}) => (
  <Button size="compact-xs" variant="light" color="red" onClick={() => act(`Revoking ${what}`, run, said, [[list]])}>
    Revoke
  </Button>
)

/**
 * Who reaches the workspace for agents: the accesses people granted MCP clients through OAuth (a member sees their
 * own; owners and admins every one), and, for owners and admins, the workspace's API keys. Each can be revoked here.
 */
export const AgentAccess = () => {
  const { manages } = useSession()
  const grants = useApi(['oauth-grants'], () => answer(client.GET('/api/v1/oauth/grants')))
  const keys = useApi(['api-keys', manages], () =>
    manages ? answer(client.GET('/api/v1/api-keys')) : Promise.resolve({ items: [] }),
  )
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Title order={3} size="h5">
          Access for agents
        </Title>
        <Text size="sm" c="dimmed">
          MCP clients you or your team signed in to this workspace{manages ? ', and its API keys' : ''}. Revoking stops
          them at once.
        </Text>
        <LoadState loaded={grants} empty="No MCP client has been granted access." isEmpty={(d) => d.items.length === 0}>
          {(d) => (
            <Table.ScrollContainer minWidth={560}>
              <Table data-testid="grants">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>MCP client</Table.Th>
                    <Table.Th>Granted by</Table.Th>
                    <Table.Th>Scopes</Table.Th>
                    <Table.Th>Granted</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {d.items.map((g) => (
                    <Table.Tr key={g.id} data-testid="grant-row">
                      <Table.Td>{g.clientName}</Table.Td>
                      <Table.Td>{g.userName}</Table.Td>
                      <Table.Td>{g.scopes.join(', ')}</Table.Td>
                      <Table.Td>{when(g.createdAt)}</Table.Td>
                      <Table.Td>
                        <Status status={g.status} />
                      </Table.Td>
                      <Table.Td>
                        {g.status !== 'revoked' && (
                          <Revoke
                            what={g.clientName}
                            run={() =>
                              answer(client.DELETE('/api/v1/oauth/grants/{id}', { params: { path: { id: g.id } } }))
                            }
                            said={`${g.clientName} can no longer reach the workspace`}
                            list="oauth-grants"
                          />
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </LoadState>
        {manages && (
          <LoadState loaded={keys} empty="No API keys." isEmpty={(d) => d.items.length === 0}>
            {(d) => (
              <Table.ScrollContainer minWidth={560}>
                <Table data-testid="api-keys">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>API key</Table.Th>
                      <Table.Th>Issued</Table.Th>
                      <Table.Th>Status</Table.Th>
                      <Table.Th />
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {d.items.map((k) => (
                      <Table.Tr key={k.id} data-testid="key-row">
                        <Table.Td>{k.name}</Table.Td>
                        <Table.Td>{when(k.createdAt)}</Table.Td>
                        <Table.Td>
                          <Status status={k.status} />
                        </Table.Td>
                        <Table.Td>
                          {k.status === 'active' && (
                            <Revoke
                              what={`the key ${k.name}`}
                              run={() =>
                                answer(client.DELETE('/api/v1/api-keys/{id}', { params: { path: { id: k.id } } }))
                              }
                              said={`The key ${k.name} is revoked`}
                              list="api-keys"
                            />
                          )}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
          </LoadState>
        )}
      </Stack>
    </Paper>
  )
}
