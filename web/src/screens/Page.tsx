import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Tabs,
  Text,
  Textarea,
  Title,
} from '@mantine/core'
import { useState } from 'react'
import { Link } from 'wouter'
import { type Answer, ApiError, answer, client } from '../api'
import { Diff, LoadState, Markdown, authorName, times, when } from '../components'
import { useSession } from '../session'
import { act, invalidate, useApi } from '../useApi'
import { stateColor } from './Pages'

// A page's screen: its header and tabs, its verification banner, the comparison of two versions, the editor and
// the history with its revert.

type PageAnswer = Answer<'/api/v1/pages/{id}', 'patch'>
/** A page as it stands (with its author and citations), as a write or a read of now answers it. */
type Page = Extract<PageAnswer, { citedCount: number }>
type Version = Answer<'/api/v1/pages/{id}/versions', 'get'>['versions'][number]

/** The page as it stands: a read of now never answers a past version or a tombstone. */
const current = (p: PageAnswer | Answer<'/api/v1/pages/{id}', 'get'>): Page => {
  if (!('citedCount' in p)) throw new ApiError(404, 'NOT_FOUND', 'this page is not there now')
  return p
}

/** Verified, or changed since: who wrote since the pin, the size of change, the citations since. */
const VerificationBanner = ({ v, onVerify }: { v: Page['verification']; onVerify?: () => void }) => {
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
const Compare = ({ id, versions }: { id: string; versions: Version[] }) => {
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
const Editor = ({ page, onSaved, onCancel }: { page: Page; onSaved: () => void; onCancel: () => void }) => {
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
