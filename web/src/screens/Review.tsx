import { Alert, Badge, Button, Group, Modal, Paper, Stack, Table, Tabs, Text, Textarea, Title } from '@mantine/core'
import { useState } from 'react'
import { Link } from 'wouter'
import { type Answer, ApiError, answer, client } from '../api'
import { Diff, LoadState, authorName, when } from '../components'
import { useSession } from '../session'
import { act, invalidate, useApi } from '../useApi'

type Proposal = Answer<'/api/v1/proposals/{id}', 'get'>
/** What a decision changes: the queue, its count in the menu, and the pages. */
const DECIDED = [['proposals'], ['pages']]

const age = (iso: string) => {
  const minutes = Math.round((Date.now() - Date.parse(iso)) / 60_000)
  return minutes < 60
    ? `${minutes} min`
    : minutes < 2880
      ? `${Math.round(minutes / 60)} h`
      : `${Math.round(minutes / 1440)} d`
}

/** One held write: its diff; approve (confirming when the page moved on) or reject with a reason. */
const Held = ({ p }: { p: Proposal }) => {
  const { canWrite } = useSession()
  const [conflict, setConflict] = useState<ApiError>()
  const [rejecting, setRejecting] = useState(false)
  const [reason, setReason] = useState('')
  const approve = async (confirm: boolean) => {
    try {
      const path = { id: p.id }
      await answer(
        client.POST('/api/v1/proposals/{id}/approve', { params: { path }, body: confirm ? { confirm } : {} }),
      )
      await invalidate(...DECIDED)
    } catch (e) {
      if (e instanceof ApiError && e.code === 'VERSION_CONFLICT') setConflict(e)
      else await act('Approving', () => Promise.reject(e))
    }
  }
  return (
    <Paper withBorder p="sm" data-testid="proposal">
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={600}>
            {p.newPage ? 'New page: ' : ''}
            {p.newPage ? p.pageTitle : <Link href={`/pages/${p.pageId}`}>{p.pageTitle}</Link>}
          </Text>
          <Group gap="xs">
            <Badge variant="light">{authorName(p.author)}</Badge>
            <Badge variant="light" color="gray">
              {age(p.createdAt)} ago
            </Badge>
            <Badge variant="light" color="orange">
              +{p.change.added} −{p.change.removed}
            </Badge>
          </Group>
        </Group>
        <Diff diff={p.diff} layout="line-by-line" />
        {conflict && (
          <Alert color="orange" title="The page has moved on since this proposal" data-testid="approve-conflict">
            <Text size="sm">{conflict.message}</Text>
            <Group mt="xs">
              <Button size="xs" color="orange" onClick={() => approve(true)}>
                Publish anyway
              </Button>
              <Button size="xs" variant="default" onClick={() => setConflict(undefined)}>
                Not now
              </Button>
            </Group>
          </Alert>
        )}
        {canWrite && !conflict && (
          <Group>
            <Button size="xs" color="green" onClick={() => approve(false)}>
              Approve
            </Button>
            <Button size="xs" color="red" variant="light" onClick={() => setRejecting(true)}>
              Reject
            </Button>
          </Group>
        )}
      </Stack>
      <Modal opened={rejecting} onClose={() => setRejecting(false)} title="Reject this proposal">
        <form
          onSubmit={async (e) => {
            e.preventDefault()
            const reject = () =>
              answer(client.POST('/api/v1/proposals/{id}/reject', { params: { path: { id: p.id } }, body: { reason } }))
            const rejected = () => ({
              title: 'Rejected',
              message:
                `The change to “${p.pageTitle}” by ${authorName(p.author)} was not published; ` +
                'the agent is told why.',
            })
            if (await act('Rejecting the proposal', reject, rejected, DECIDED)) setRejecting(false)
          }}
        >
          <Stack>
            <Textarea
              label="Reason (the agent reads it)"
              required
              value={reason}
              onChange={(e) => setReason(e.currentTarget.value)}
            />
            <Button type="submit" color="red" disabled={!reason.trim()}>
              Reject
            </Button>
          </Stack>
        </form>
      </Modal>
    </Paper>
  )
}

type Listed = Answer<'/api/v1/proposals', 'get'>['items'][number]

/**
 * Proposals already decided, approved and rejected, the latest decision first: who decided, when, and what came
 * of it.
 */
const Decided = () => {
  const decided = useApi(['proposals', 'decided'], async () => {
    const of = (status: 'approved' | 'rejected') =>
      answer(client.GET('/api/v1/proposals', { params: { query: { status, limit: 50 } } }))
    const [approved, rejected] = await Promise.all([of('approved'), of('rejected')])
    const at = (p: Listed) => p.decidedAt ?? p.createdAt
    return [...approved.items, ...rejected.items].sort((a, b) => at(b).localeCompare(at(a)))
  })
  return (
    <LoadState loaded={decided} empty="Nothing has been decided yet." isEmpty={(d) => d.length === 0}>
      {(d) => (
        <Table.ScrollContainer minWidth={600}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Page</Table.Th>
                <Table.Th>Proposed by</Table.Th>
                <Table.Th>Decision</Table.Th>
                <Table.Th>Decided by</Table.Th>
                <Table.Th>When</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {d.map((p) => (
                <Table.Tr key={p.id} data-testid="decided">
                  <Table.Td>
                    {p.newPage && p.status !== 'approved' ? (
                      p.pageTitle
                    ) : (
                      <Link href={`/pages/${p.pageId}`}>{p.pageTitle}</Link>
                    )}{' '}
                    <Text span size="xs" c="dimmed">
                      +{p.change.added} −{p.change.removed}
                    </Text>
                  </Table.Td>
                  <Table.Td>{authorName(p.author)}</Table.Td>
                  <Table.Td>
                    <Badge color={p.status === 'approved' ? 'green' : 'red'} variant="light">
                      {p.status}
                    </Badge>
                    <Text size="xs" c="dimmed">
                      {p.status === 'approved' && p.version !== undefined ? `published as version ${p.version}` : ''}
                      {p.status === 'rejected' && p.reason ? `“${p.reason}”` : ''}
                    </Text>
                  </Table.Td>
                  <Table.Td data-testid="decided-by">{p.decidedBy?.name ?? '—'}</Table.Td>
                  <Table.Td>{when(p.decidedAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </LoadState>
  )
}

export const ReviewScreen = () => {
  const pending = useApi(['proposals', 'pending'], () =>
    answer(client.GET('/api/v1/proposals', { params: { query: { status: 'pending', limit: 50 } } })),
  )
  return (
    <Stack>
      <Title order={2}>
        Review queue{' '}
        {pending.data?.total ? (
          <Badge color="orange" size="lg">
            {pending.data.total}
          </Badge>
        ) : null}
      </Title>
      <Tabs defaultValue="pending" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="pending">Waiting{pending.data?.total ? ` (${pending.data.total})` : ''}</Tabs.Tab>
          <Tabs.Tab value="decided">Decided</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="pending" pt="md">
          <Stack>
            <LoadState loaded={pending} empty="Nothing waits for review." isEmpty={(d) => d.items.length === 0}>
              {(d) => d.items.map((p) => <Held key={p.id} p={p} />)}
            </LoadState>
            <Text size="xs" c="dimmed">
              Held writes come from agents writing into collections whose policy is "hold for review". Listed{' '}
              {when(new Date().toISOString())}.
            </Text>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="decided" pt="md">
          <Decided />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  )
}
