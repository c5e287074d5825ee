import { Alert, Button, Group, Paper, SegmentedControl, Select, SimpleGrid, Stack, Text, Textarea } from '@mantine/core'
import { useState } from 'react'
import { type Answer, ApiError, answer, client } from '../api'
import { Diff, LoadState, authorName, times, when } from '../components'
import { act, useApi } from '../useApi'
import { stateColor } from './Pages'

// The parts of a page's screen: its verification banner, the comparison of two versions, the editor.

export type PageAnswer = Answer<'/api/v1/pages/{id}', 'patch'>
/** A page as it stands (with its author and citations), as a write or a read of now answers it. */
export type Page = Extract<PageAnswer, { citedCount: number }>
export type Version = Answer<'/api/v1/pages/{id}/versions', 'get'>['versions'][number]

/** The page as it stands: a read of now never answers a past version or a tombstone. */
export const current = (p: PageAnswer | Answer<'/api/v1/pages/{id}', 'get'>): Page => {
  if (!('citedCount' in p)) throw new ApiError(404, 'NOT_FOUND', 'this page is not there now')
  return p
}

/** "cited 1 time", "cited 2 times". */

/** Verified, or changed since: who wrote since the pin, the size of change, the citations since. */
export const VerificationBanner = ({ v, onVerify }: { v: Page['verification']; onVerify?: () => void }) => {
  if (!v) return null
  const since = v.sinceVerified
  return (
    <Alert
      color={stateColor[v.state]}
      title={
        v.state === 'verified'
          ? `Verified (version ${v.verifiedVersion})`
          : v.state === 'changed_since_verified'
            ? `Changed since verified version ${v.verifiedVersion}`
            : 'Not verified'
      }
      data-testid="verification"
      data-state={v.state}
    >
      <Stack gap={4}>
        {v.verifiedBy && (
          <Text size="sm">
            Verified by {v.verifiedBy.name} on {when(v.verifiedAt)}.
          </Text>
        )}
        {since && (
          <Text size="sm" data-testid="since-verified">
            Since then: {since.versions} new version{since.versions === 1 ? '' : 's'} by{' '}
            {since.writers.map(authorName).join(', ') || 'nobody'}; +{since.change.added} −{since.change.removed} lines;
            cited {times(since.citations)}.
          </Text>
        )}
        {onVerify && v.state !== 'verified' && (
          <Button size="xs" w="fit-content" onClick={onVerify}>
            Verify this version
          </Button>
        )}
      </Stack>
    </Alert>
  )
}

/** Two versions' difference, side by side or unified. */
export const Compare = ({ id, versions }: { id: string; versions: Version[] }) => {
  const latest = versions[0]?.version ?? 1
  const [from, setFrom] = useState(String(Math.max(1, latest - 1)))
  const [to, setTo] = useState(String(latest))
  const [layout, setLayout] = useState<'side-by-side' | 'line-by-line'>('side-by-side')
  const diff = useApi(['pages', id, 'diff', from, to], () =>
    answer(
      client.GET('/api/v1/pages/{id}/diff', {
        params: { path: { id }, query: { from: Number(from), to: Number(to) } },
      }),
    ),
  )
  const options = versions.map((v) => ({ value: String(v.version), label: `v${v.version}` }))
  return (
    <Stack gap="xs">
      <Group align="end">
        <Select
          label="From"
          data={options}
          value={from}
          onChange={(v) => v && setFrom(v)}
          w={100}
          allowDeselect={false}
        />
        <Select label="To" data={options} value={to} onChange={(v) => v && setTo(v)} w={100} allowDeselect={false} />
        <SegmentedControl
          aria-label="Diff layout"
          data={[
            { value: 'side-by-side', label: 'Side by side' },
            { value: 'line-by-line', label: 'Unified' },
          ]}
          value={layout}
          onChange={(v) => setLayout(v as typeof layout)}
        />
      </Group>
      <LoadState loaded={diff} empty="" isEmpty={() => false}>
        {(d) => (
          <>
            <Text size="sm">
              +{d.change.added} −{d.change.removed} lines
            </Text>
            <Diff diff={d.diff} layout={layout} />
          </>
        )}
      </LoadState>
    </Stack>
  )
}

/** Edit with expectedVersion; on a conflict, the newer version beside the draft, to merge by hand. */
export const Editor = ({ page, onSaved, onCancel }: { page: Page; onSaved: () => void; onCancel: () => void }) => {
  const [content, setContent] = useState(page.content)
  const [base, setBase] = useState<number>(page.version)
  const [newer, setNewer] = useState<Page>()
  const save = async () => {
    try {
      const path = { id: page.id }
      await answer(client.PATCH('/api/v1/pages/{id}', { params: { path }, body: { content, expectedVersion: base } }))
      onSaved()
    } catch (e) {
      if (e instanceof ApiError && e.code === 'VERSION_CONFLICT') {
        const latest = current(await answer(client.GET('/api/v1/pages/{id}', { params: { path: { id: page.id } } })))
        setNewer(latest)
        setBase(latest.version)
      } else await act('Saving', () => Promise.reject(e))
    }
  }
  return (
    <Stack>
      {newer && (
        <Alert color="orange" title={`Version ${newer.version} was written while you edited`} data-testid="conflict">
          <Text size="sm">
            Merge its changes into your text, then save again: your save now applies on top of version {newer.version}.
          </Text>
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, md: newer ? 2 : 1 }}>
        <Textarea
          label="Your text (Markdown)"
          autosize
          minRows={10}
          value={content}
          onChange={(e) => setContent(e.currentTarget.value)}
        />
        {newer && (
          <Paper withBorder p="sm">
            <Text size="sm" fw={500}>
              Version {newer.version} by {authorName(newer.author)}
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid="newer">
              {newer.content}
            </Text>
          </Paper>
        )}
      </SimpleGrid>
      <Group>
        <Button onClick={save}>Save</Button>
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
      </Group>
    </Stack>
  )
}
