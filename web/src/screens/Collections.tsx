import { Anchor, Badge, Button, Group, Modal, Paper, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core'
import { useState } from 'react'
import { api } from '../api'
import { LoadState } from '../components'
import { useSession } from '../session'
import { act, useApi } from '../useApi'

const POLICIES = [
  { value: 'open', label: 'Open: agents write directly' },
  { value: 'hold_for_review', label: 'Hold for review: agents propose, people approve' },
]

/** A collection's form: create, or edit one. */
const CollectionForm = ({ initial, onDone }: { initial?: any; onDone: () => void }) => {
  const [name, setName] = useState(initial?.name ?? '')
  const [description, setDescription] = useState(initial?.description ?? '')
  const [writePolicy, setWritePolicy] = useState<string>(initial?.writePolicy ?? 'open')
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault()
        const body = { name, description, writePolicy }
        const done = await act(initial ? 'Saving the collection' : 'Creating the collection', () =>
          initial ? api('PATCH', `/api/v1/collections/${initial.id}`, body) : api('POST', '/api/v1/collections', body),
        )
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
const Publish = ({ c, onDone }: { c: any; onDone: () => void }) => {
  const [slug, setSlug] = useState(c.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''))
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault()
        if (await act('Publishing the pack', () => api('POST', '/api/v1/packs', { collectionId: c.id, slug }), 'Published'))
          onDone()
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
  const list = useApi(() => api('GET', '/api/v1/collections'), [])
  const [editing, setEditing] = useState<any>()
  const close = () => {
    setEditing(undefined)
    list.reload()
  }
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Collections and packs</Title>
        {canWrite && <Button onClick={() => setEditing({})}>New collection</Button>}
      </Group>
      <LoadState loaded={list} empty="No collections yet." isEmpty={(d: any) => d.collections.length === 0}>
        {(d: any) =>
          d.collections.map((c: any) => (
            <Paper withBorder p="sm" key={c.id} data-testid="collection">
              <Stack gap="xs">
                <Group justify="space-between">
                  <Text fw={600}>{c.name}</Text>
                  <Group gap="xs">
                    <Badge variant="light">{c.pageCount} pages</Badge>
                    <Badge color={c.writePolicy === 'open' ? 'green' : 'orange'}>{c.writePolicy.replaceAll('_', ' ')}</Badge>
                  </Group>
                </Group>
                {c.description && <Text size="sm">{c.description}</Text>}
                {c.pack ? (
                  <Anchor href={c.pack.url} target="_blank" rel="noopener" data-testid="pack-link">
                    Public pack: {c.pack.url}
                  </Anchor>
                ) : (
                  canWrite && <Publish c={c} onDone={list.reload} />
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
      <Modal opened={editing !== undefined} onClose={() => setEditing(undefined)} title={editing?.id ? 'Edit collection' : 'New collection'}>
        {editing !== undefined && <CollectionForm initial={editing.id ? editing : undefined} onDone={close} />}
      </Modal>
    </Stack>
  )
}
