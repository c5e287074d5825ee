import { Badge, Button, Group, Modal, Select, Stack, Table, TextInput, Textarea, Title } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { useState } from 'react'
import { Link, useLocation } from 'wouter'
import { type Query, answer, client, defined } from '../api'
import { LoadState, ListPagination, authorName, when } from '../components'
import { useSession } from '../session'
import { act, useApi } from '../useApi'

const PAGE_SIZE = 20

export const stateColor: Record<string, string> = {
  verified: 'green',
  changed_since_verified: 'orange',
  unverified: 'gray',
}

/** A new page (title and Markdown), in a collection or none. */
const NewPage = ({ collections }: { collections: Array<{ value: string; label: string }> }) => {
  const [opened, { open, close }] = useDisclosure()
  const [, navigate] = useLocation()
  const [title, setTitle] = useState('')
  const [content, setContent] = useState('')
  const [collectionId, setCollectionId] = useState<string | null>(null)
  return (
    <>
      <Button onClick={open}>New page</Button>
      <Modal opened={opened} onClose={close} title="New page">
        <form
          onSubmit={async (e) => {
            e.preventDefault()
            const body = { title, content, ...(collectionId ? { collectionId } : {}) }
            const page = await act(
              'Creating the page',
              () => answer(client.POST('/api/v1/pages', { body })),
              undefined,
              [['pages']],
            )
            if (page) navigate(`/pages/${page.id}`)
          }}
        >
          <Stack>
            <TextInput label="Title" required value={title} onChange={(e) => setTitle(e.currentTarget.value)} />
            <Select label="Collection" clearable data={collections} value={collectionId} onChange={setCollectionId} />
            <Textarea
              label="Content (Markdown)"
              required
              autosize
              minRows={6}
              value={content}
              onChange={(e) => setContent(e.currentTarget.value)}
            />
            <Button type="submit">Create</Button>
          </Stack>
        </form>
      </Modal>
    </>
  )
}

export const PagesScreen = () => {
  const { canWrite } = useSession()
  const [collectionId, setCollectionId] = useState<string | null>(null)
  const [state, setState] = useState<string | null>(null)
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const config = useApi(['config'], () => answer(client.GET('/api/v1/knowledge/config')))
  const collections = useApi(['collections'], () => answer(client.GET('/api/v1/collections')))
  const verification = config.data?.config.verification.enabled === true
  const filters = { page, limit: PAGE_SIZE, collectionId, state, search }
  const list = useApi(['pages', filters], () =>
    answer(client.GET('/api/v1/pages', { params: { query: defined(filters) as Query<'/api/v1/pages', 'get'> } })),
  )
  const collectionOptions = (collections.data?.collections ?? []).map((c) => ({ value: c.id, label: c.name }))
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Pages</Title>
        {canWrite && <NewPage collections={collectionOptions} />}
      </Group>
      <Group gap="xs" align="end">
        <TextInput label="Title" value={search} onChange={(e) => (setSearch(e.currentTarget.value), setPage(1))} />
        <Select
          label="Collection"
          clearable
          data={collectionOptions}
          value={collectionId}
          onChange={(v) => (setCollectionId(v), setPage(1))}
        />
        {verification && (
          <Select
            label="Verification"
            clearable
            data={[
              { value: 'verified', label: 'Verified' },
              { value: 'changed_since_verified', label: 'Changed since verified' },
              { value: 'unverified', label: 'Unverified' },
            ]}
            value={state}
            onChange={(v) => (setState(v), setPage(1))}
          />
        )}
      </Group>
      <LoadState loaded={list} empty="No pages match." isEmpty={(d) => d.items.length === 0}>
        {(d) => (
          <>
            <Table.ScrollContainer minWidth={500}>
              <Table striped highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Title</Table.Th>
                    <Table.Th>Version</Table.Th>
                    <Table.Th>Last written by</Table.Th>
                    <Table.Th>Updated</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {d.items.map((p) => (
                    <Table.Tr key={p.id} data-testid="page-row">
                      <Table.Td>
                        <Link href={`/pages/${p.id}`}>{p.title}</Link>{' '}
                        {p.verification && p.verification.state !== 'unverified' && (
                          <Badge color={stateColor[p.verification.state]} size="sm">
                            {p.verification.state.replaceAll('_', ' ')}
                          </Badge>
                        )}
                      </Table.Td>
                      <Table.Td>v{p.version}</Table.Td>
                      <Table.Td>{authorName(p.author)}</Table.Td>
                      <Table.Td>{when(p.updatedAt)}</Table.Td>
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
              label="Pages of the list"
            />
          </>
        )}
      </LoadState>
    </Stack>
  )
}
