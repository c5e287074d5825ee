import {
  Badge,
  Button,
  Checkbox,
  Grid,
  Group,
  NavLink,
  NumberInput,
  Paper,
  Progress,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { Dropzone } from '@mantine/dropzone'
import { useEffect, useState } from 'react'
import { Link } from 'wouter'
import { answer, asForm, client, defined, type Query } from '../api'
import { useFollowing } from '../events'
import { LoadState, ListPagination, when } from '../components'
import { useSession } from '../session'
import { act, invalidate, useApi } from '../useApi'

const PAGE_SIZE = 20
/** What adding knowledge changes on screen. */
const CHANGES = [['entries'], ['stats']]
type ListQuery = Query<'/api/v1/knowledge', 'get'>

export const statusColor: Record<string, string> = {
  completed: 'green',
  processing: 'blue',
  pending: 'gray',
  failed: 'red',
}

/**
 * A task's steps and progress until it completes or fails, the error in words: reloaded when its
 * events arrive (or, for a member who may not follow the events, every second).
 */
export const TaskProgress = ({ taskId, label, onDone }: { taskId: string; label: string; onDone?: () => void }) => {
  const following = useFollowing()
  const [finished, setFinished] = useState(false)
  const loaded = useApi(
    ['tasks', taskId],
    () => answer(client.GET('/api/v1/knowledge/tasks/{taskId}', { params: { path: { taskId } } })),
    { refetchInterval: following || finished ? false : 1000 },
  )
  const task = loaded.data
  const error = loaded.error?.message
  useEffect(() => {
    if (finished || (task?.status !== 'completed' && task?.status !== 'failed')) return
    setFinished(true)
    onDone?.()
  }, [task?.status, finished, onDone])
  const status = task?.status ?? 'pending'
  return (
    <Paper withBorder p="xs" data-testid="task" data-status={status}>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" truncate>
          {label}
        </Text>
        <Badge color={statusColor[status]}>{status}</Badge>
      </Group>
      <Progress value={task?.progress ?? 0} mt={4} aria-label={`${label}: ${task?.progress ?? 0}%`} />
      {task?.currentStep && status !== 'completed' && (
        <Text size="xs" c="dimmed">
          {task.currentStep}
        </Text>
      )}
      {(task?.error || error) && (
        <Text size="sm" c="red" role="alert">
          {task?.error ?? error}
        </Text>
      )}
    </Paper>
  )
}

/** Drag-and-drop of one or more files, and a URL to ingest with crawl options. */
const AddKnowledge = ({ folderId, onAdded }: { folderId?: string; onAdded: () => void }) => {
  const [tasks, setTasks] = useState<Array<{ id: string; label: string }>>([])
  const [url, setUrl] = useState('')
  const [depth, setDepth] = useState<number | string>(0)
  const [maxPages, setMaxPages] = useState<number | string>(10)
  const [sameDomainOnly, setSameDomainOnly] = useState(true)
  const started = (entry: object | undefined, label: string) => {
    const taskId = entry && 'taskId' in entry ? entry.taskId : undefined
    if (typeof taskId === 'string') setTasks((t) => [{ id: taskId, label }, ...t].slice(0, 10))
  }
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Title order={2} size="h5">
          Add knowledge
        </Title>
        <Dropzone
          multiple
          aria-label="Upload files"
          onDrop={async (files) => {
            for (const file of files) {
              const form = new FormData()
              form.set('source', 'file')
              if (folderId) form.set('folderId', folderId)
              form.set('file', file, file.name)
              const upload = client.POST('/api/v1/knowledge', { body: form as never, ...asForm })
              started(await act(`Uploading ${file.name}`, () => answer(upload), undefined, CHANGES), file.name)
            }
            onAdded()
          }}
          onReject={(rejected) =>
            void act('Uploading', async () => {
              throw new Error(rejected.map((r) => `${r.file.name}: ${r.errors[0]?.message}`).join('; '))
            })
          }
        >
          <Text ta="center" size="sm" p="md">
            Drop files here (PDF, DOCX, HTML, Markdown, text), or click to choose. Several at once are fine.
          </Text>
        </Dropzone>
        <form
          onSubmit={async (e) => {
            e.preventDefault()
            const entry = await act(
              'Ingesting the URL',
              () =>
                answer(
                  client.POST('/api/v1/knowledge', {
                    body: {
                      source: 'url',
                      url,
                      title: url,
                      ...(folderId ? { folderId } : {}),
                      crawlOptions: { depth: Number(depth), maxPages: Number(maxPages), sameDomainOnly },
                    },
                  }),
                ),
              undefined,
              CHANGES,
            )
            if (entry) {
              started(entry, url)
              setUrl('')
              onAdded()
            }
          }}
        >
          <Group align="end" gap="xs">
            <TextInput
              label="Web page URL"
              type="url"
              required
              value={url}
              onChange={(e) => setUrl(e.currentTarget.value)}
              style={{ flex: 1, minWidth: 200 }}
            />
            <NumberInput label="Crawl depth" min={0} max={2} value={depth} onChange={setDepth} w={110} />
            <NumberInput label="Max pages" min={1} max={50} value={maxPages} onChange={setMaxPages} w={110} />
            <Checkbox
              label="Same domain only"
              checked={sameDomainOnly}
              onChange={(e) => setSameDomainOnly(e.currentTarget.checked)}
              mb={8}
            />
            <Button type="submit">Ingest</Button>
          </Group>
        </form>
        {tasks.map((t) => (
          <TaskProgress key={t.id} taskId={t.id} label={t.label} onDone={onAdded} />
        ))}
      </Stack>
    </Paper>
  )
}

export const KnowledgeScreen = () => {
  const { canWrite } = useSession()
  const [folderId, setFolderId] = useState<string>()
  const [source, setSource] = useState<string | null>(null)
  const [status, setStatus] = useState<string | null>(null)
  const [tag, setTag] = useState('')
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const following = useFollowing()
  const stats = useApi(['stats'], () => answer(client.GET('/api/v1/knowledge/stats')))
  const filters = { page, limit: PAGE_SIZE, folderId, source, processingStatus: status, tag, search }
  const [processing, setProcessing] = useState(false)
  // Entries still being processed are shown live: reloaded by their events, or polled.
  const list = useApi(
    ['entries', filters],
    () =>
      answer(
        client.GET('/api/v1/knowledge', {
          params: { query: { ...defined(filters), includeContent: false } as ListQuery },
        }),
      ),
    { refetchInterval: processing && !following ? 1000 : false },
  )
  useEffect(() => {
    setProcessing(
      Boolean(list.data?.items.some((i) => i.processingStatus === 'pending' || i.processingStatus === 'processing')),
    )
  }, [list.data])
  const reload = () => void invalidate(...CHANGES)
  return (
    <Grid>
      <Grid.Col span={{ base: 12, md: 3 }}>
        <Title order={2} size="h5" mb="xs">
          Folders
        </Title>
        <nav aria-label="Folders">
          <LoadState loaded={stats} empty="No folders." isEmpty={() => false}>
            {(s) => (
              <>
                <NavLink
                  label="All entries"
                  active={!folderId}
                  rightSection={<Badge variant="light">{s.stats.totalDocuments}</Badge>}
                  onClick={() => (setFolderId(undefined), setPage(1))}
                />
                {s.stats.byFolder.map((f) =>
                  f.folderId ? (
                    <NavLink
                      key={f.folderId}
                      label={f.name}
                      active={folderId === f.folderId}
                      rightSection={<Badge variant="light">{f.count}</Badge>}
                      onClick={() => (setFolderId(f.folderId ?? undefined), setPage(1))}
                    />
                  ) : (
                    // Entries in no folder: counted, not a filter of the list.
                    <Text key="root" size="sm" px="sm" py={6}>
                      In no folder: {f.count}
                    </Text>
                  ),
                )}
              </>
            )}
          </LoadState>
        </nav>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 9 }}>
        <Stack>
          <Title order={2}>Knowledge</Title>
          {canWrite && <AddKnowledge folderId={folderId} onAdded={reload} />}
          <Group gap="xs" align="end">
            <TextInput
              label="Title"
              placeholder="Search titles"
              value={search}
              onChange={(e) => (setSearch(e.currentTarget.value), setPage(1))}
            />
            <Select
              label="Source"
              clearable
              data={['manual', 'document', 'webpage', 'faq', 'api_docs', 'transcript']}
              value={source}
              onChange={(v) => (setSource(v), setPage(1))}
              w={130}
            />
            <Select
              label="Status"
              clearable
              data={['pending', 'processing', 'completed', 'failed']}
              value={status}
              onChange={(v) => (setStatus(v), setPage(1))}
              w={140}
            />
            <TextInput label="Tag" value={tag} onChange={(e) => (setTag(e.currentTarget.value), setPage(1))} w={130} />
          </Group>
          <LoadState loaded={list} empty="No entries match." isEmpty={(d) => d.items.length === 0}>
            {(d) => (
              <>
                <Table.ScrollContainer minWidth={500}>
                  <Table striped highlightOnHover>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Title</Table.Th>
                        <Table.Th>Source</Table.Th>
                        <Table.Th>Status</Table.Th>
                        <Table.Th>Updated</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {d.items.map((e) => (
                        <Table.Tr key={e.id} data-testid="entry-row">
                          <Table.Td>
                            <Link href={`/entries/${e.id}`}>{e.title}</Link>
                          </Table.Td>
                          <Table.Td>{e.source}</Table.Td>
                          <Table.Td>
                            <Badge color={statusColor[e.processingStatus]} data-testid="entry-status">
                              {e.processingStatus}
                              {e.processingStatus === 'processing' ? ` ${e.processingProgress}%` : ''}
                            </Badge>
                            {!e.isEnabled && (
                              <Badge color="gray" ml={4}>
                                disabled
                              </Badge>
                            )}
                          </Table.Td>
                          <Table.Td>{when(e.updatedAt)}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
                <ListPagination total={d.total} pageSize={PAGE_SIZE} page={page} onChange={setPage} label="Pages of entries" />
              </>
            )}
          </LoadState>
        </Stack>
      </Grid.Col>
    </Grid>
  )
}
