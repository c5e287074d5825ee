import { Badge, Grid, Group, Select, Stack, Table, TextInput, Title } from '@mantine/core'
import { useEffect, useState } from 'react'
import { Link } from 'wouter'
import { type Answer, answer, client, defined, type Query } from '../api'
import { useFollowing } from '../events'
import { ListPagination, LoadState, when } from '../components'
import { useSession } from '../session'
import { invalidate, useApi } from '../useApi'
import { AddKnowledge, CHANGES } from './AddKnowledge'
import { statusColor } from './TaskProgress'
import { FolderNav, ROOT } from './Folders'

type Item = Answer<'/api/v1/knowledge', 'get'>['items'][number]

/** An entry's processing status; a failed one in red capitals, its reason as its title (shown on hover). */
const Status = ({ e }: { e: Item }) => {
  if (e.processingStatus !== 'failed')
    return (
      <Badge color={statusColor[e.processingStatus]} data-testid="entry-status">
        {e.processingStatus}
        {e.processingStatus === 'processing' ? ` ${e.processingProgress}%` : ''}
      </Badge>
    )
  // Why, as the list item says (the failed task's reason).
  return (
    <Badge color="red" variant="filled" data-testid="entry-status" title={e.failure?.reason}>
      FAILED
    </Badge>
  )
}

const PAGE_SIZE = 20
type ListQuery = Query<'/api/v1/knowledge', 'get'>

export const KnowledgeScreen = () => {
  const { canWrite } = useSession()
  const [folderId, setFolderId] = useState<string>()
  const [source, setSource] = useState<string | null>(null)
  const [status, setStatus] = useState<string | null>(null)
  const [tag, setTag] = useState('')
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const following = useFollowing()
  const filters = { page, limit: PAGE_SIZE, folderId, source, processingStatus: status, tag, search }
  const [processing, setProcessing] = useState(false)
  // Entries still being processed are shown live: reloaded by their events, or polled while the stream is down.
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
        <FolderNav folderId={folderId} onChoose={(id) => (setFolderId(id), setPage(1))} />
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 9 }}>
        <Stack>
          <Title order={2}>Knowledge</Title>
          {canWrite && <AddKnowledge folderId={folderId === ROOT ? undefined : folderId} onAdded={reload} />}
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
                            <Status e={e} />
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
                <ListPagination
                  total={d.total}
                  pageSize={PAGE_SIZE}
                  page={page}
                  onChange={setPage}
                  label="Pages of entries"
                />
              </>
            )}
          </LoadState>
        </Stack>
      </Grid.Col>
    </Grid>
  )
}
