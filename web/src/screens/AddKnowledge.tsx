import {
  Button,
  Checkbox,
  Divider,
  Group,
  NumberInput,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core'
import { Dropzone } from '@mantine/dropzone'
import { useEffect, useState } from 'react'
import { answer, asForm, client } from '../api'
import { typeNames } from '../fileTypes'
import { act, useApi } from '../useApi'
import { TaskProgress } from './TaskProgress'

/** What adding knowledge changes on screen. */
export const CHANGES = [['entries'], ['stats']]

/** A text written here: a title, its content and the folder chosen above; searchable as soon as it is added. */
const AddText = ({ folderId, onAdded }: { folderId: string | null; onAdded: () => void }) => {
  const [title, setTitle] = useState('')
  const [content, setContent] = useState('')
  return (
    <form
      aria-label="Add a text"
      onSubmit={async (e) => {
        e.preventDefault()
        const body = { source: 'text' as const, title: title.trim(), content, ...(folderId ? { folderId } : {}) }
        const added = await act(
          'Adding the text',
          () => answer(client.POST('/api/v1/knowledge', { body })),
          () => ({ title: 'Text added', message: `“${body.title}” is searchable now.` }),
          CHANGES,
        )
        if (added) {
          setTitle('')
          setContent('')
          onAdded()
        }
      }}
    >
      <Stack gap="xs">
        <TextInput
          label="Entry title"
          required
          maxLength={500}
          value={title}
          onChange={(e) => setTitle(e.currentTarget.value)}
        />
        <Textarea
          label="Content"
          required
          autosize
          minRows={3}
          maxRows={12}
          value={content}
          onChange={(e) => setContent(e.currentTarget.value)}
        />
        <Button type="submit" w="fit-content" disabled={!title.trim() || !content.trim()}>
          Add text
        </Button>
      </Stack>
    </form>
  )
}

/** Drag-and-drop of one or more files, a URL to ingest with crawl options, or a text; into a folder or none. */
export const AddKnowledge = ({ folderId: viewed, onAdded }: { folderId?: string; onAdded: () => void }) => {
  const config = useApi(['config'], () => answer(client.GET('/api/v1/knowledge/config')))
  const folders = useApi(['folders'], () => answer(client.GET('/api/v1/knowledge/folders')))
  // What is added goes into the folder on screen, unless another (or none) is chosen.
  const [folderId, setFolderId] = useState<string | null>(viewed ?? null)
  useEffect(() => setFolderId(viewed ?? null), [viewed])
  const types = config.data?.config.allowedFileTypes
  const [tasks, setTasks] = useState<Array<{ id: string; label: string }>>([])
  const [url, setUrl] = useState('')
  const [depth, setDepth] = useState<number | string>(0)
  const [maxPages, setMaxPages] = useState<number | string>(10)
  const [sameDomainOnly, setSameDomainOnly] = useState(true)
  const started = (entry: object | undefined, label: string) => {
    const taskId = entry && 'taskId' in entry ? entry.taskId : undefined
    if (typeof taskId === 'string') setTasks((t) => [{ id: taskId, label }, ...t].slice(0, 10))
  }
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Group justify="space-between" align="end">
          <Title order={2} size="h5">
            Add knowledge
          </Title>
          <Select
            label="Into folder"
            placeholder="In no folder"
            clearable
            size="xs"
            w={220}
            data={(folders.data?.folders ?? []).map((f) => ({ value: f.id, label: f.name }))}
            value={folderId}
            onChange={setFolderId}
          />
        </Group>
        <Dropzone
          multiple
          aria-label="Upload files"
          onDrop={async (files) => {
            for (const file of files) {
              const form = new FormData()
              form.set('source', 'file')
              if (folderId) form.set('folderId', folderId)
              form.set('file', file, file.name)
              const upload = client.POST('/api/v1/knowledge', { body: form as never, ...asForm })
              started(await act(`Uploading ${file.name}`, () => answer(upload), undefined, CHANGES), file.name)
            }
            onAdded()
          }}
          onReject={(rejected) =>
            void act('Uploading', async () => {
              throw new Error(rejected.map((r) => `${r.file.name}: ${r.errors[0]?.message}`).join('; '))
            })
          }
        >
          <Text ta="center" size="sm" p="md" data-testid="allowed-types">
            Drop files here{types ? ` (${typeNames(types)})` : ''}, or click to choose. Several at once are fine.
          </Text>
        </Dropzone>
        <form
          onSubmit={async (e) => {
            e.preventDefault()
            const entry = await act(
              'Ingesting the URL',
              () =>
                answer(
                  client.POST('/api/v1/knowledge', {
                    body: {
                      source: 'url',
                      url,
                      title: url,
                      ...(folderId ? { folderId } : {}),
                      crawlOptions: { depth: Number(depth), maxPages: Number(maxPages), sameDomainOnly },
                    },
                  }),
                ),
              undefined,
              CHANGES,
            )
            if (entry) {
              started(entry, url)
              setUrl('')
              onAdded()
            }
          }}
        >
          <Group align="end" gap="xs">
            <TextInput
              label="Web page URL"
              type="url"
              required
              value={url}
              onChange={(e) => setUrl(e.currentTarget.value)}
              style={{ flex: 1, minWidth: 200 }}
            />
            <NumberInput label="Crawl depth" min={0} max={2} value={depth} onChange={setDepth} w={110} />
            <NumberInput label="Max pages" min={1} max={50} value={maxPages} onChange={setMaxPages} w={110} />
            <Checkbox
              label="Same domain only"
              checked={sameDomainOnly}
              onChange={(e) => setSameDomainOnly(e.currentTarget.checked)}
              mb={8}
            />
            <Button type="submit">Ingest</Button>
          </Group>
        </form>
        <Divider label="or write a text" labelPosition="left" />
        <AddText folderId={folderId} onAdded={onAdded} />
        {tasks.map((t) => (
          <TaskProgress key={t.id} taskId={t.id} label={t.label} onDone={onAdded} />
        ))}
      </Stack>
    </Paper>
  )
}
