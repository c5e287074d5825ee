import {
  Accordion,
  Badge,
  Button,
  Code,
  Group,
  Modal,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Title,
} from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { useState } from 'react'
import { Link, useLocation } from 'wouter'
import { api } from '../api'
import { LoadState, when } from '../components'
import { useSession } from '../session'
import { act, useApi } from '../useApi'
import { TaskProgress, statusColor } from './Knowledge'

const Fact = ({ label, children }: { label: string; children: React.ReactNode }) => (
  <div>
    <Text size="xs" c="dimmed">
      {label}
    </Text>
    <Text size="sm" component="div">
      {children}
    </Text>
  </div>
)

/** URL sync settings, and "sync now". */
const SyncSettings = ({ id, canWrite }: { id: string; canWrite: boolean }) => {
  const sync = useApi(() => api('GET', `/api/v1/knowledge/${id}/sync-config`), [id])
  const [task, setTask] = useState<string>()
  return (
    <LoadState loaded={sync} empty="" isEmpty={() => false}>
      {(s: any) => (
        <Paper withBorder p="sm">
          <Stack gap="xs">
            <Title order={3} size="h6">
              Sync from {s.sourceUrl}
            </Title>
            <Group>
              <Switch
                label="Sync on a schedule"
                checked={s.enabled}
                disabled={!canWrite}
                onChange={async (e) => {
                  const enabled = e.currentTarget.checked
                  if (await act('Changing sync', () => api('PATCH', `/api/v1/knowledge/${id}/sync-config`, { enabled })))
                    sync.reload()
                }}
              />
              <NumberInput
                label="Every (hours)"
                w={130}
                min={1}
                defaultValue={s.intervalHours}
                disabled={!canWrite}
                onBlur={async (e) => {
                  const intervalHours = Number(e.currentTarget.value)
                  if (intervalHours !== s.intervalHours)
                    (await act('Changing sync', () =>
                      api('PATCH', `/api/v1/knowledge/${id}/sync-config`, { intervalHours }),
                    )) && sync.reload()
                }}
              />
            </Group>
            <Text size="sm">
              Status {s.status}; last {when(s.lastSyncAt)}; next {when(s.nextSyncAt)}
              {s.error ? ` — ${s.error}` : ''}
            </Text>
            {canWrite && (
              <Button
                size="xs"
                w="fit-content"
                onClick={async () => {
                  const r = await act('Syncing', () => api('POST', `/api/v1/knowledge/${id}/sync`))
                  if (r?.taskId) setTask(r.taskId)
                }}
              >
                Sync now
              </Button>
            )}
            {task && <TaskProgress taskId={task} label="Sync" onDone={sync.reload} />}
          </Stack>
        </Paper>
      )}
    </LoadState>
  )
}

export const EntryScreen = ({ id }: { id: string }) => {
  const { canWrite, manages } = useSession()
  const [, navigate] = useLocation()
  const entry = useApi(() => api('GET', `/api/v1/knowledge/${id}`), [id])
  const chunks = useApi(() => api('GET', `/api/v1/knowledge/${id}/chunks`), [id])
  const folders = useApi(() => api('GET', '/api/v1/knowledge/folders'), [])
  const [confirming, { open, close }] = useDisclosure()
  return (
    <LoadState loaded={entry} empty="" isEmpty={() => false}>
      {(e: any) => (
        <Stack>
          <Group justify="space-between">
            <Title order={2}>{e.title}</Title>
            <Group gap="xs">
              <Badge color={statusColor[e.processingStatus]}>{e.processingStatus}</Badge>
              <Badge color={e.freshness === 'current' ? 'green' : e.freshness === 'stale' ? 'orange' : 'gray'}>
                {e.freshness}
              </Badge>
            </Group>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <Fact label="Source">{e.source}</Fact>
            <Fact label="Cited">{e.citedCount} times</Fact>
            <Fact label="Verified">{e.verified ? `${when(e.verified.at)}` : 'never'}</Fact>
            <Fact label="Created">{when(e.createdAt)}</Fact>
            <Fact label="Updated">{when(e.updatedAt)}</Fact>
            <Fact label="Tokens">{e.tokenCount}</Fact>
            <Fact label="Metadata">
              <Code block>{JSON.stringify(e.metadata, null, 2)}</Code>
            </Fact>
          </SimpleGrid>
          {canWrite && (
            <Group>
              <Switch
                label="Enabled (searchable)"
                checked={e.isEnabled}
                onChange={async (ev) => {
                  const isEnabled = ev.currentTarget.checked
                  if (await act('Changing the entry', () => api('PATCH', `/api/v1/knowledge/${id}`, { isEnabled })))
                    entry.reload()
                }}
              />
              <Select
                aria-label="Folder"
                placeholder="Move to folder"
                w={200}
                data={[
                  { value: '', label: '(root)' },
                  ...(folders.data?.items ?? folders.data?.folders ?? []).map((f: any) => ({
                    value: f.id,
                    label: f.name,
                  })),
                ]}
                value={e.folderId ?? ''}
                onChange={async (folderId) => {
                  if (
                    await act('Moving', () =>
                      api('POST', `/api/v1/knowledge/${id}/move`, { folderId: folderId ? folderId : null }),
                    )
                  )
                    entry.reload()
                }}
              />
              <Button
                variant="light"
                onClick={async () =>
                  (await act('Verifying', () => api('POST', `/api/v1/knowledge/${id}/verify`), 'Verified')) &&
                  entry.reload()
                }
              >
                Verify
              </Button>
              <Button color="red" variant="light" onClick={open}>
                Delete
              </Button>
              {manages && (
                <Button component={Link} href={`/audit?streamId=entry-${id}`} variant="subtle">
                  History
                </Button>
              )}
            </Group>
          )}
          <Modal opened={confirming} onClose={close} title="Delete this entry?">
            <Stack>
              <Text size="sm">
                "{e.title}" will be deleted with its chunks and embeddings, and its content cut from the log. This
                cannot be undone.
              </Text>
              <Group justify="end">
                <Button variant="default" onClick={close}>
                  Cancel
                </Button>
                <Button
                  color="red"
                  onClick={async () => {
                    close()
                    if (await act('Deleting', () => api('DELETE', `/api/v1/knowledge/${id}`), 'Deleted')) navigate('/')
                  }}
                >
                  Delete
                </Button>
              </Group>
            </Stack>
          </Modal>
          {e.syncConfig && <SyncSettings id={id} canWrite={canWrite} />}
          <Title order={3} size="h5">
            Content
          </Title>
          <Paper withBorder p="sm" style={{ whiteSpace: 'pre-wrap', maxHeight: 400, overflow: 'auto' }}>
            {e.content || <Text c="dimmed">No content yet.</Text>}
          </Paper>
          <Title order={3} size="h5">
            Chunks
          </Title>
          <LoadState loaded={chunks} empty="No chunks yet." isEmpty={(c: any) => c.items.length === 0}>
            {(c: any) => (
              <Accordion variant="contained">
                {c.items.map((k: any) => (
                  <Accordion.Item key={k.index} value={String(k.index)}>
                    <Accordion.Control>
                      Chunk {k.index + 1} · {k.tokenCount} tokens · characters {k.start}–{k.end}
                    </Accordion.Control>
                    <Accordion.Panel style={{ whiteSpace: 'pre-wrap' }}>{k.content}</Accordion.Panel>
                  </Accordion.Item>
                ))}
              </Accordion>
            )}
          </LoadState>
        </Stack>
      )}
    </LoadState>
  )
}
