import { Badge, Button, CopyButton, Group, Paper, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import { Link } from 'wouter'
import { type Answer, answer, client } from '../api'
import { Diff, LoadState, actorName, when } from '../components'
import { useSession } from '../session'
import { useApi } from '../useApi'

type Receipt = Answer<'/api/v1/receipts/{id}', 'get'>
type Checked = Receipt['results'][number]

const STATUS: Record<string, { color: string; says: (r: Checked) => string }> = {
  current: { color: 'green', says: (r) => `current: version ${r.version} is still what it says` },
  changed: {
    color: 'orange',
    says: (r) =>
      `changed: served at version ${r.version}${r.currentVersion ? `, now at version ${r.currentVersion}` : ''}`,
  },
  deleted: { color: 'red', says: (r) => `deleted since: version ${r.version} was served` },
}

/** What the receipt says of each served result now: current, changed (with the difference) or deleted. */
const Results = ({ receipt, titles }: { receipt: Receipt; titles: Map<string, string> }) => {
  const { me } = useSession()
  return (
    <Stack gap="xs">
      <Text size="sm" data-testid="receipt-summary">
        Searched {when(receipt.at)}
        {receipt.recorded && receipt.query ? ` for “${receipt.query}” (${receipt.mode} mode)` : ''}
        {receipt.recorded && receipt.actor ? ` by ${actorName(receipt.actor, me?.id)}` : ''}.{' '}
        {receipt.results.filter((r) => r.status === 'current').length} of {receipt.results.length} served results are
        unchanged.
      </Text>
      {receipt.results.map((r, i) => {
        const id = r.entryId ?? r.pageId ?? ''
        const status = STATUS[r.status] ?? { color: 'gray', says: () => r.status }
        return (
          <Paper withBorder p="xs" key={`${id}:${r.chunkIndex ?? i}`} data-testid="checked" data-status={r.status}>
            <Group justify="space-between" wrap="nowrap">
              <Text size="sm" fw={600} truncate>
                {i + 1}.{' '}
                {r.status === 'deleted' ? (
                  (titles.get(id) ?? id)
                ) : (
                  <Link href={r.pageId ? `/pages/${id}` : `/entries/${id}`}>{titles.get(id) ?? id}</Link>
                )}
              </Text>
              <Badge color={status.color} variant="light">
                {r.status}
              </Badge>
            </Group>
            <Text size="xs" c="dimmed">
              {status.says(r)}
            </Text>
            {r.status === 'changed' && r.diff !== undefined && <Diff diff={r.diff} layout="line-by-line" />}
          </Paper>
        )
      })}
    </Stack>
  )
}

/** The answer's receipt check, asked of the service (`GET /api/v1/receipts/{id}`) when opened and on "Check again". */
const Check = ({ id, titles }: { id: string; titles: Map<string, string> }) => {
  const checked = useApi(['receipts', id], () =>
    answer(client.GET('/api/v1/receipts/{id}', { params: { path: { id } } })),
  )
  return (
    <Stack gap="xs">
      <LoadState loaded={checked} empty="" isEmpty={() => false}>
        {(receipt) => <Results receipt={receipt} titles={titles} />}
      </LoadState>
      <Button size="xs" variant="default" w="fit-content" onClick={checked.reload} loading={checked.loading}>
        Check again
      </Button>
    </Stack>
  )
}

/**
 * An answer's receipt: a signed token naming what was served, shortened on screen (copied whole), and
 * the check of whether each result is still what was served.
 */
export const ReceiptCheck = ({ id, titles }: { id: string; titles: Map<string, string> }) => {
  const [open, setOpen] = useState(false)
  return (
    <Paper withBorder p="xs" data-testid="receipt">
      <Stack gap="xs">
        <Group gap="xs">
          <Text size="sm">
            Receipt{' '}
            <Text span ff="monospace" size="xs" title={id}>
              {id.length > 24 ? `${id.slice(0, 12)}…${id.slice(-8)}` : id}
            </Text>
          </Text>
          <CopyButton value={id}>
            {({ copied, copy }) => (
              <Button size="compact-xs" variant="subtle" onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
          <Button size="compact-xs" variant="light" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
            {open ? 'Hide the check' : 'Check this answer'}
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          Keep the receipt to prove later what this answer served: the check says whether each result is still current,
          changed since (and how) or deleted.
        </Text>
        {open && <Check id={id} titles={titles} />}
      </Stack>
    </Paper>
  )
}
