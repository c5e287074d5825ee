import { Alert, Badge, Button, Group, Modal, Paper, Stack, Text, Textarea, Title } from '@mantine/core'
import { useState } from 'react'
import { Link } from 'wouter'
import { ApiError, api } from '../api'
import { Diff, LoadState, authorName, when } from '../components'
import { useSession } from '../session'
import { act, useApi } from '../useApi'

/** Told when a proposal is decided, so that what counts them reloads. */
export const REVIEWED = 'kb:reviewed'

const age = (iso: string) => {
  const minutes = Math.round((Date.now() - Date.parse(iso)) / 60_000)
  return minutes < 60 ? `${minutes} min` : minutes < 2880 ? `${Math.round(minutes / 60)} h` : `${Math.round(minutes / 1440)} d`
}

/** One held write: its diff; approve (confirming when the page moved on) or reject with a reason. */
const Proposal = ({ p, onDecided }: { p: any; onDecided: () => void }) => {
  const { canWrite } = useSession()
  const [conflict, setConflict] = useState<ApiError>()
  const [rejecting, setRejecting] = useState(false)
  const [reason, setReason] = useState('')
  const approve = async (confirm: boolean) => {
    try {
      await api('POST', `/api/v1/proposals/${p.id}/approve`, confirm ? { confirm } : {})
      onDecided()
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
            if (await act('Rejecting', () => api('POST', `/api/v1/proposals/${p.id}/reject`, { reason }), 'Rejected')) {
              setRejecting(false)
              onDecided()
            }
          }}
        >
          <Stack>
            <Textarea label="Reason (the agent reads it)" required value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
            <Button type="submit" color="red" disabled={!reason.trim()}>
              Reject
            </Button>
          </Stack>
        </form>
      </Modal>
    </Paper>
  )
}

export const ReviewScreen = () => {
  const pending = useApi(() => api('GET', '/api/v1/proposals?status=pending&limit=50'), [])
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
      <LoadState loaded={pending} empty="Nothing waits for review." isEmpty={(d: any) => d.items.length === 0}>
        {(d: any) =>
          d.items.map((p: any) => (
            <Proposal
              key={p.id}
              p={p}
              onDecided={() => {
                pending.reload()
                // The menu's count follows at once.
                window.dispatchEvent(new Event(REVIEWED))
              }}
            />
          ))
        }
      </LoadState>
      <Text size="xs" c="dimmed">
        Held writes come from agents writing into collections whose policy is "hold for review". Listed {when(new Date().toISOString())}.
      </Text>
    </Stack>
  )
}
