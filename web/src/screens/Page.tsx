import { Badge, Button, Group, Modal, Paper, Stack, Table, Tabs, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { Link } from 'wouter'
import { answer, client } from '../api'
import { LoadState, Markdown, authorName, times, when } from '../components'
import { useSession } from '../session'
import { act, invalidate, useApi } from '../useApi'
import { Compare, Editor, VerificationBanner, current } from './PageParts'

export const PageScreen = ({ id }: { id: string }) => {
  const { canWrite, manages } = useSession()
  const path = { params: { path: { id } } }
  const page = useApi(['pages', id], () => answer(client.GET('/api/v1/pages/{id}', path)).then(current))
  const versions = useApi(['pages', id, 'versions'], () => answer(client.GET('/api/v1/pages/{id}/versions', path)))
  const [editing, setEditing] = useState(false)
  // The revert asked about, kept while its dialog fades out (its words must not change as it goes).
  const [reverting, setReverting] = useState<{ version: number; next: number; open: boolean }>()
  const closeRevert = () => setReverting((r) => r && { ...r, open: false })
  // A page's write changes it, its versions and the list (its version, its verification).
  const reload = () => void invalidate(['pages'])
  return (
    <LoadState loaded={page} empty="" isEmpty={() => false}>
      {(p) => (
        <Stack>
          <Group justify="space-between">
            <Title order={2}>{p.title}</Title>
            <Group gap="xs">
              <Badge data-testid="page-version">v{p.version}</Badge>
              <Text size="sm" c="dimmed">
                by {authorName(p.author)} · cited {times(p.citedCount)}
              </Text>
              {manages && (
                <Button component={Link} href={`/audit?streamId=page-${id}`} size="xs" variant="subtle">
                  Events
                </Button>
              )}
            </Group>
          </Group>
          <VerificationBanner
            v={p.verification}
            onVerify={
              canWrite
                ? async () =>
                    (await act(
                      'Verifying',
                      () => answer(client.POST('/api/v1/pages/{id}/verify', path)),
                      'Verified',
                    )) && reload()
                : undefined
            }
          />
          <Tabs defaultValue="page" keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="page">Page</Tabs.Tab>
              <Tabs.Tab value="history">History</Tabs.Tab>
              <Tabs.Tab value="compare">Compare versions</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="page" pt="sm">
              {editing ? (
                <Editor
                  page={p}
                  onSaved={() => {
                    setEditing(false)
                    reload()
                  }}
                  onCancel={() => setEditing(false)}
                />
              ) : (
                <Stack>
                  {canWrite && (
                    <Button w="fit-content" onClick={() => setEditing(true)}>
                      Edit
                    </Button>
                  )}
                  <Paper withBorder p="md" data-testid="rendered">
                    <Markdown source={p.content} />
                  </Paper>
                </Stack>
              )}
            </Tabs.Panel>
            <Tabs.Panel value="history" pt="sm">
              <LoadState loaded={versions} empty="No versions yet." isEmpty={(d) => d.versions.length === 0}>
                {(d) => (
                  <Table.ScrollContainer minWidth={500}>
                    <Table>
                      <Table.Thead>
                        <Table.Tr>
                          <Table.Th>Version</Table.Th>
                          <Table.Th>Author</Table.Th>
                          <Table.Th>When</Table.Th>
                          <Table.Th>Change</Table.Th>
                          <Table.Th />
                        </Table.Tr>
                      </Table.Thead>
                      <Table.Tbody>
                        {d.versions.map((v) => (
                          <Table.Tr key={v.version} data-testid="version-row">
                            <Table.Td>
                              v{v.version} {v.mode !== 'write' && <Badge size="xs">{v.mode}</Badge>}
                            </Table.Td>
                            <Table.Td data-testid="version-author">{authorName(v.author)}</Table.Td>
                            <Table.Td>{when(v.createdAt)}</Table.Td>
                            <Table.Td>
                              +{v.change.added} −{v.change.removed}
                            </Table.Td>
                            <Table.Td>
                              {canWrite && v.version !== p.version && (
                                <Button
                                  size="compact-xs"
                                  variant="light"
                                  onClick={() => setReverting({ version: v.version, next: p.version + 1, open: true })}
                                >
                                  Revert to v{v.version}
                                </Button>
                              )}
                            </Table.Td>
                          </Table.Tr>
                        ))}
                      </Table.Tbody>
                    </Table>
                  </Table.ScrollContainer>
                )}
              </LoadState>
            </Tabs.Panel>
            <Tabs.Panel value="compare" pt="sm">
              {versions.data && <Compare id={id} versions={versions.data.versions} />}
            </Tabs.Panel>
          </Tabs>
          <Modal opened={reverting?.open === true} onClose={closeRevert} title="Revert this page?">
            <Stack>
              <Text size="sm">
                A new version {reverting?.next} will restore the content of version {reverting?.version}. The history
                keeps every version.
              </Text>
              <Group justify="end">
                <Button variant="default" onClick={closeRevert}>
                  Cancel
                </Button>
                <Button
                  onClick={async () => {
                    const version = reverting?.version
                    closeRevert()
                    if (
                      await act(
                        'Reverting',
                        () =>
                          answer(
                            client.POST('/api/v1/pages/{id}/revert', {
                              ...path,
                              body: { version: version ?? 0, expectedVersion: p.version },
                            }),
                          ),
                        'Reverted',
                      )
                    )
                      reload()
                  }}
                >
                  Revert
                </Button>
              </Group>
            </Stack>
          </Modal>
        </Stack>
      )}
    </LoadState>
  )
}
