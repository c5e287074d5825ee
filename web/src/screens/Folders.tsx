import { ActionIcon, Badge, Button, Group, Menu, Modal, NavLink, Stack, Text, TextInput, Textarea } from '@mantine/core'
import { useState } from 'react'
import { type Answer, answer, client } from '../api'
import { LoadState } from '../components'
import { useSession } from '../session'
import { act, useApi } from '../useApi'

/** What a folder's creation, renaming or deletion changes on screen. */
const CHANGES = [['stats'], ['folders'], ['entries']]

type Counted = Answer<'/api/v1/knowledge/stats', 'get'>['stats']['byFolder'][number]
type Editing = { id?: string; name: string; description: string }

/** A folder's name and description, for a new folder or one being renamed. */
const FolderForm = ({ editing, onClose }: { editing: Editing; onClose: () => void }) => {
  const [name, setName] = useState(editing.name)
  const [description, setDescription] = useState(editing.description)
  const id = editing.id
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault()
        // A rename sends only what changed: a description left as it was is not written again.
        const body = { name: name.trim(), ...(description !== editing.description ? { description } : {}) }
        const saved = id
          ? await act(
              'Renaming the folder',
              () =>
                answer(
                  client.PATCH('/api/v1/knowledge/folders/{folderId}', { params: { path: { folderId: id } }, body }),
                ),
              () => ({ title: 'Folder saved', message: `The folder is now called “${body.name}”.` }),
              CHANGES,
            )
          : await act(
              'Creating the folder',
              () => answer(client.POST('/api/v1/knowledge/folders', { body })),
              () => ({ title: 'Folder created', message: `“${body.name}” is ready for entries.` }),
              CHANGES,
            )
        if (saved) onClose()
      }}
    >
      <Stack>
        <TextInput
          label="Name"
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          data-autofocus
        />
        <Textarea
          label="Description"
          maxLength={500}
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
        />
        <Group justify="end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={!name.trim()}>
            {id ? 'Save' : 'Create folder'}
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

/** Asks before deleting a folder, saying where its entries go. */
const DeleteFolder = ({
  folder,
  onClose,
  onDeleted,
}: {
  folder: Counted
  onClose: () => void
  onDeleted: () => void
}) => (
  <Stack>
    <Text size="sm">
      Delete the folder “{folder.name}”?{' '}
      {folder.count === 0
        ? 'It holds no entries.'
        : `Its ${folder.count} ${folder.count === 1 ? 'entry moves' : 'entries move'} to “In no folder”: ` +
          'no entry is deleted.'}
    </Text>
    <Group justify="end">
      <Button variant="default" onClick={onClose}>
        Cancel
      </Button>
      <Button
        color="red"
        onClick={async () => {
          const folderId = folder.folderId ?? ''
          const deleted = await act(
            'Deleting the folder',
            () => answer(client.DELETE('/api/v1/knowledge/folders/{folderId}', { params: { path: { folderId } } })),
            (d) => ({
              title: 'Folder deleted',
              message:
                `“${folder.name}” is gone; ` +
                `${d.movedToRoot} ${d.movedToRoot === 1 ? 'entry is' : 'entries are'} now in no folder.`,
            }),
            CHANGES,
          )
          if (deleted) onDeleted()
        }}
      >
        Delete folder
      </Button>
    </Group>
  </Stack>
)

/** The list's folder filter for the entries in no folder. */
export const ROOT = 'root'

/**
 * The folders beside the list, each a filter of it: all entries, each folder (renamed or deleted from
 * its menu), and the entries in no folder. Writers create folders here.
 */
export const FolderNav = ({ folderId, onChoose }: { folderId?: string; onChoose: (id?: string) => void }) => {
  const { canWrite } = useSession()
  const stats = useApi(['stats'], () => answer(client.GET('/api/v1/knowledge/stats')))
  const folders = useApi(['folders'], () => answer(client.GET('/api/v1/knowledge/folders')))
  const described = (id: string) => folders.data?.folders.find((f) => f.id === id)?.description ?? ''
  const [editing, setEditing] = useState<Editing>()
  const [deleting, setDeleting] = useState<Counted>()
  return (
    <nav aria-label="Folders">
      <LoadState loaded={stats} empty="No folders." isEmpty={() => false}>
        {(s) => (
          <>
            <NavLink
              label="All entries"
              active={!folderId}
              rightSection={<Badge variant="light">{s.stats.totalDocuments}</Badge>}
              onClick={() => onChoose(undefined)}
            />
            {s.stats.byFolder.map((f) =>
              f.folderId ? (
                <Group key={f.folderId} gap={0} wrap="nowrap" data-testid="folder">
                  <NavLink
                    label={f.name}
                    active={folderId === f.folderId}
                    rightSection={<Badge variant="light">{f.count}</Badge>}
                    onClick={() => onChoose(f.folderId ?? undefined)}
                    style={{ flex: 1, minWidth: 0 }}
                  />
                  {canWrite && (
                    <Menu position="bottom-end" withinPortal>
                      <Menu.Target>
                        <ActionIcon variant="subtle" color="gray" aria-label={`Folder ${f.name}: actions`}>
                          ⋯
                        </ActionIcon>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Item
                          onClick={() =>
                            setEditing({
                              id: f.folderId ?? undefined,
                              name: f.name,
                              description: described(f.folderId ?? ''),
                            })
                          }
                        >
                          Rename
                        </Menu.Item>
                        <Menu.Item color="red" onClick={() => setDeleting(f)}>
                          Delete
                        </Menu.Item>
                      </Menu.Dropdown>
                    </Menu>
                  )}
                </Group>
              ) : (
                <NavLink
                  key="root"
                  label="In no folder"
                  active={folderId === ROOT}
                  rightSection={<Badge variant="light">{f.count}</Badge>}
                  onClick={() => onChoose(ROOT)}
                  data-testid="root-count"
                />
              ),
            )}
          </>
        )}
      </LoadState>
      {canWrite && (
        <Button size="xs" variant="light" mt="xs" onClick={() => setEditing({ name: '', description: '' })}>
          New folder
        </Button>
      )}
      <Modal
        opened={editing !== undefined}
        onClose={() => setEditing(undefined)}
        title={editing?.id ? 'Rename the folder' : 'New folder'}
      >
        {editing && <FolderForm key={editing.id ?? 'new'} editing={editing} onClose={() => setEditing(undefined)} />}
      </Modal>
      <Modal opened={deleting !== undefined} onClose={() => setDeleting(undefined)} title="Delete the folder">
        {deleting && (
          <DeleteFolder
            folder={deleting}
            onClose={() => setDeleting(undefined)}
            onDeleted={() => {
              if (folderId === deleting.folderId) onChoose(undefined)
              setDeleting(undefined)
            }}
          />
        )}
      </Modal>
    </nav>
  )
}
