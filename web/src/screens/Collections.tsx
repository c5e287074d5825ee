import {
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core'
import { useState } from 'react'
import { type Answer, answer, client } from '../api'
import { LoadState } from '../components'
import { useSession } from '../session'
import { act, useApi } from '../useApi'

type Collection = Answer<'/api/v1/collections/{id}', 'get'>
type WritePolicy = 'open' | 'hold_for_review'
const CHANGES = [['collections'], ['pages']]

const POLICIES = [
  { value: 'open', label: 'Open: agents write directly' },
  { value: 'hold_for_review', label: 'Hold for review: agents propose, people approve' },
]

/** A collection's form: create, or edit one. */
const CollectionForm = ({ initial, onDone }: { initial?: Collection; onDone: () => void }) => {
  const [name, setName] = useState(initial?.name ?? '')
  const [description, setDescription] = useState(initial?.description ?? '')
  const [writePolicy, setWritePolicy] = useState(initial?.writePolicy ?? 'open')
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault()
        const body = { name, description, writePolicy: writePolicy as WritePolicy }
        const write = () =>
          answer(
            initial
              ? client.PATCH('/api/v1/collections/{id}', { params: { path: { id: initial.id } }, body })
              : client.POST('/api/v1/collections', { body }),
          )
        const done = await act(initial ? 'Saving the collection' : 'Creating the collection', write, undefined, CHANGES)
        if (done) onDone()
      }}
    >
      <Stack>
        <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <Textarea label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
        <Select
          label="Write policy"
          data={POLICIES}
          value={writePolicy}
          onChange={(v) => v && setWritePolicy(v)}
          allowDeselect={false}
        />
        <Button type="submit">{initial ? 'Save' : 'Create'}</Button>
      </Stack>
    </form>
  )
}

/** Publishes a collection as a public pack under a slug. */
const Publish = ({ c }: { c: Collection }) => {
  const [slug, setSlug] = useState(
    c.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, ''),
  )
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault()
        const publish = () => answer(client.POST('/api/v1/packs', { body: { collectionId: c.id, slug } }))
        await act('Publishing the pack', publish, 'Published', CHANGES)
      }}
    >
      <Group align="end" gap="xs">
        <TextInput label="Pack slug" value={slug} onChange={(e) => setSlug(e.currentTarget.value)} w={200} />
        <Button type="submit" variant="light">
          Publish as a public pack
        </Button>
      </Group>
    </form>
  )
}

export const CollectionsScreen = () => {
  const { canWrite } = useSession()
  const list = useApi(['collections'], () => answer(client.GET('/api/v1/collections')))
  // A collection to edit, or null for a new one.
  const [editing, setEditing] = useState<Collection | null>()
  const close = () => setEditing(undefined)
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Collections and packs</Title>
        {canWrite && <Button onClick={() => setEditing(null)}>New collection</Button>}
      </Group>
      <LoadState loaded={list} empty="No collections yet." isEmpty={(d) => d.collections.length === 0}>
        {(d) =>
          d.collections.map((c) => (
            <Paper withBorder p="sm" key={c.id} data-testid="collection">
              <Stack gap="xs">
                <Group justify="space-between">
                  <Text fw={600}>{c.name}</Text>
                  <Group gap="xs">
                    <Badge variant="light">{c.pageCount} pages</Badge>
                    <Badge color={c.writePolicy === 'open' ? 'green' : 'orange'}>
                      {c.writePolicy.replaceAll('_', ' ')}
                    </Badge>
                  </Group>
                </Group>
                {c.description && <Text size="sm">{c.description}</Text>}
                {c.pack ? (
                  <Anchor href={c.pack.url} target="_blank" rel="noopener" data-testid="pack-link">
                    Public pack: {c.pack.url}
                  </Anchor>
                ) : (
                  canWrite && <Publish c={c} />
                )}
                {canWrite && (
                  <Button size="xs" variant="default" w="fit-content" onClick={() => setEditing(c)}>
                    Edit
                  </Button>
                )}
              </Stack>
            </Paper>
          ))
        }
      </LoadState>
      <Modal
        opened={editing !== undefined}
        onClose={() => setEditing(undefined)}
        title={editing ? 'Edit collection' : 'New collection'}
      >
        {editing !== undefined && <CollectionForm initial={editing ?? undefined} onDone={close} />}
      </Modal>
    </Stack>
  )
}
