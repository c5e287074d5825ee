import {
  Accordion,
  Alert,
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
import { type Answer, ApiError, answer, client } from '../api'
import { LoadState, times, when } from '../components'
import { useSession } from '../session'
import { act, useApi } from '../useApi'
import { TaskProgress, statusColor } from './TaskProgress'

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
  const path = { params: { path: { id } } }
  const sync = useApi(['entries', id, 'sync'], () => answer(client.GET('/api/v1/knowledge/{id}/sync-config', path)))
  const change = (body: { enabled: boolean; intervalHours?: number }) =>
    act(
      'Changing sync',
      () => answer(client.PATCH('/api/v1/knowledge/{id}/sync-config', { ...path, body })),
      undefined,
      [['entries', id]],
    )
  const [task, setTask] = useState<string>()
  return (
    <LoadState loaded={sync} empty="" isEmpty={() => false}>
      {(s) => (
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
                  await change({ enabled: e.currentTarget.checked })
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
                  if (intervalHours !== s.intervalHours) await change({ enabled: s.enabled, intervalHours })
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
                  const r = await act('Syncing', () => answer(client.POST('/api/v1/knowledge/{id}/sync', path)))
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

/** The entry as it stands (a read as of now never answers a tombstone; one would be an error). */
const current = (e: Answer<'/api/v1/knowledge/{id}', 'get'>) => {
  if ('deleted' in e) throw new ApiError(404, 'NOT_FOUND', e.message)
  return e
}

/** Why the entry's processing failed, where everyone looking at it sees it first. */
const Failure = ({ failure }: { failure: { reason: string; taskId: string; at: string } }) => (
  <Alert color="red" title="Processing failed: this entry has no content" data-testid="entry-failure">
    <Text size="sm">{failure.reason}</Text>
    <Text size="xs" c="dimmed">
      Task {failure.taskId}, {when(failure.at)}
    </Text>
  </Alert>
)

export const EntryScreen = ({ id }: { id: string }) => {
  const { canWrite, manages } = useSession()
  const [, navigate] = useLocation()
  const path = { params: { path: { id } } }
  const entry = useApi(['entries', id], () => answer(client.GET('/api/v1/knowledge/{id}', path)).then(current))
  const chunks = useApi(['entries', id, 'chunks'], () => answer(client.GET('/api/v1/knowledge/{id}/chunks', path)))
  const folders = useApi(['folders'], () => answer(client.GET('/api/v1/knowledge/folders')))
  const changed = [['entries'], ['stats']]
  const [confirming, { open, close }] = useDisclosure()
  const verifying = () => answer(client.POST('/api/v1/knowledge/{id}/verify', path))
  const verify = () => act('Verifying', verifying, 'Verified', changed)
  return (
    <LoadState loaded={entry} empty="" isEmpty={() => false}>
      {(e) => (
        <Stack>
          <Group justify="space-between">
            <Title order={2}>{e.title}</Title>
            <Group gap="xs">
              <Badge color={statusColor[e.processingStatus]}>{e.processingStatus}</Badge>
              {/* Freshness speaks of content: an entry still pending or failed has none to be fresh. */}
              {e.content && (
                <Badge color={e.freshness === 'current' ? 'green' : e.freshness === 'stale' ? 'orange' : 'gray'}>
                  {e.freshness}
                </Badge>
              )}
            </Group>
          </Group>
          {e.failure && <Failure failure={e.failure} />}
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <Fact label="Source">{e.source}</Fact>
            <Fact label="Cited">{times(e.citedCount)}</Fact>
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
                  const patch = client.PATCH('/api/v1/knowledge/{id}', { ...path, body: { isEnabled } })
                  await act('Changing the entry', () => answer(patch), undefined, changed)
                }}
              />
              <Select
                aria-label="Folder"
                placeholder="Move to folder"
                w={200}
                data={[
                  { value: '', label: 'In no folder' },
                  ...(folders.data?.folders ?? []).map((f) => ({
                    value: f.id,
                    label: f.name,
                  })),
                ]}
                value={e.folderId ?? ''}
                onChange={async (folderId) => {
                  const move = client.POST('/api/v1/knowledge/{id}/move', {
                    ...path,
                    body: { folderId: folderId || null },
                  })
                  await act('Moving', () => answer(move), undefined, changed)
                }}
              />
              {e.content && (
                <Button variant="light" onClick={verify}>
                  Verify
                </Button>
              )}
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
                    const deleting = () => answer(client.DELETE('/api/v1/knowledge/{id}', path))
                    if (await act('Deleting', deleting, 'Deleted', changed)) navigate('/')
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
            {e.content ||
              (e.failure ? (
                <Text c="red">Nothing was stored: {e.failure.reason}</Text>
              ) : (
                <Text c="dimmed">No content yet.</Text>
              ))}
          </Paper>
          <Title order={3} size="h5">
            Chunks
          </Title>
          <LoadState loaded={chunks} empty="No chunks yet." isEmpty={(c) => c.items.length === 0}>
            {(c) => (
              <Accordion variant="contained">
                {c.items.map((k) => (
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
