import { Button, Code, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { Fragment, useState } from 'react'
import { Link, useSearch } from 'wouter'
import { type Query, answer, client, defined } from '../api'
import { ListPagination, LoadState, field, when } from '../components'
import { useSession } from '../session'
import { useApi } from '../useApi'

/** Who caused an event: an agent client, a person (you, or their id), or the service itself. */
const auditActor = (a: object | null | undefined, me?: { id: string; name: string }) => {
  if (!a) return '—'
  const kind = field(a, 'kind')
  if (kind === 'agent') return `agent ${field(a, 'client')}`
  if (kind !== 'human') return kind ?? 'system'
  return field(a, 'userId') === me?.id ? `${me?.name} (you)` : (field(a, 'name') ?? field(a, 'userId'))
}

const PAGE_SIZE = 25

/** What an event's stream is: an entry or a page links to it. */
const streamLink = (streamId: string) => {
  const [category, ...rest] = streamId.split('-')
  const id = rest.join('-')
  if (category === 'entry') return <Link href={`/entries/${id}`}>{streamId}</Link>
  if (category === 'page') return <Link href={`/pages/${id}`}>{streamId}</Link>
  return streamId
}

/** The workspace's events, newest first, filtered by actor, type and stream (owners and admins). */
export const AuditScreen = () => {
  const { me } = useSession()
  const params = new URLSearchParams(useSearch())
  const [streamId, setStreamId] = useState(params.get('streamId') ?? '')
  const [type, setType] = useState('')
  const [actor, setActor] = useState('')
  const [page, setPage] = useState(1)
  const [open, setOpen] = useState<number>()
  const filters = { page, limit: PAGE_SIZE, streamId, type, actor }
  const events = useApi(['audit', filters], () =>
    answer(
      client.GET('/api/v1/audit/events', {
        params: { query: defined(filters) as Query<'/api/v1/audit/events', 'get'> },
      }),
    ),
  )
  return (
    <Stack>
      <Title order={2}>Audit</Title>
      <Group gap="xs" align="end">
        <TextInput
          label="Actor"
          placeholder="user id or agent client"
          value={actor}
          onChange={(e) => (setActor(e.currentTarget.value), setPage(1))}
        />
        <TextInput
          label="Type"
          placeholder="PageVersionWritten"
          value={type}
          onChange={(e) => (setType(e.currentTarget.value), setPage(1))}
        />
        <TextInput
          label="Stream"
          placeholder="page-…"
          value={streamId}
          onChange={(e) => (setStreamId(e.currentTarget.value), setPage(1))}
        />
      </Group>
      <LoadState loaded={events} empty="No events match." isEmpty={(d) => d.events.length === 0}>
        {(d) => (
          <>
            <Table.ScrollContainer minWidth={600}>
              <Table striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Position</Table.Th>
                    <Table.Th>When</Table.Th>
                    <Table.Th>Type</Table.Th>
                    <Table.Th>Actor</Table.Th>
                    <Table.Th>Stream</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {d.events.map((e) => (
                    <Fragment key={e.position}>
                      <Table.Tr data-testid="audit-row">
                        <Table.Td>{e.position}</Table.Td>
                        <Table.Td>{when(e.time)}</Table.Td>
                        <Table.Td>{e.type}</Table.Td>
                        <Table.Td>{auditActor(e.actor, me)}</Table.Td>
                        <Table.Td>{streamLink(e.streamId)}</Table.Td>
                        <Table.Td>
                          <Button
                            size="compact-xs"
                            variant="subtle"
                            onClick={() => setOpen(open === e.position ? undefined : e.position)}
                          >
                            {open === e.position ? 'Hide' : 'Data'}
                          </Button>
                        </Table.Td>
                      </Table.Tr>
                      {open === e.position && (
                        <Table.Tr>
                          <Table.Td colSpan={6}>
                            <Code block>{JSON.stringify(e.data, null, 2)}</Code>
                          </Table.Td>
                        </Table.Tr>
                      )}
                    </Fragment>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <ListPagination
              total={d.pagination.total}
              pageSize={PAGE_SIZE}
              page={page}
              onChange={setPage}
              label="Pages of events"
            />
          </>
        )}
      </LoadState>
      <Text size="xs" c="dimmed">
        Events are immutable; every change of the workspace is one.
      </Text>
    </Stack>
  )
}
