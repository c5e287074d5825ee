import { Button, Group, MultiSelect, NumberInput, Paper, Select, Stack, Switch, Text, Title } from '@mantine/core'
import { useEffect, useState } from 'react'
import { type Answer, ApiError, answer, client } from '../api'
import type { paths } from '../schema'
import { ErrorAlert, LoadState } from '../components'
import { FILE_TYPES } from '../fileTypes'
import { useSession } from '../session'
import { AgentAccess } from './AgentAccess'
import { act, useApi } from '../useApi'

type Config = Answer<'/api/v1/knowledge/config', 'get'>['config']
type ConfigChanges = NonNullable<
  paths['/api/v1/knowledge/config']['patch']['requestBody']
>['content']['application/json']
/** The configuration as the form edits it: groups of settings by name. */
type Values = Record<string, unknown>
const group = (config: Config | undefined, name: string) => (config as Values | undefined)?.[name]

/**
 * What the form changed from what it loaded, group by group: a save sends only that, so a setting
 * left alone keeps following the service's default.
 */
const changedFrom = (before: Values, after: Values): Values => {
  const out: Values = {}
  for (const [key, value] of Object.entries(after)) {
    const was = before[key]
    const nested = value !== null && typeof value === 'object' && !Array.isArray(value)
    if (nested && was !== null && typeof was === 'object') {
      const inner = changedFrom(was as Values, value as Values)
      if (Object.keys(inner).length > 0) out[key] = inner
    } else if (JSON.stringify(value) !== JSON.stringify(was)) out[key] = value
  }
  return out
}

/** The problems the API listed, by field path ("search.minScore: …"). */
const byField = (error?: ApiError) => {
  const out: Record<string, string> = {}
  for (const d of error?.details ?? []) {
    const i = d.indexOf(':')
    if (i > 0) out[d.slice(0, i).trim()] = d.slice(i + 1).trim()
  }
  return out
}

/** The workspace's configuration as a form, checked by the API, its messages beside the fields. */
export const SettingsScreen = () => {
  const { manages } = useSession()
  const loaded = useApi(['config'], () => answer(client.GET('/api/v1/knowledge/config')))
  const [config, setConfig] = useState<Config>()
  const [error, setError] = useState<ApiError>()
  useEffect(() => setConfig(loaded.data?.config), [loaded.data])
  const set = (path: string, value: unknown) => {
    const [a, b] = path.split('.')
    setConfig((c) => (c ? ({ ...c, [a]: b ? { ...(group(c, a) as Values), [b]: value } : value } as Config) : c))
  }
  const problems = byField(error)
  /** A setting's value by its path (`search.minScore`). */
  const get = (path: string) => {
    const [a, b] = path.split('.')
    return b ? (group(config, a) as Values | undefined)?.[b] : group(config, a)
  }
  const num = (path: string, label: string, props: object = {}) => (
    <NumberInput
      label={label}
      value={get(path) as number | undefined}
      onChange={(v) => set(path, v === '' ? undefined : v)}
      error={problems[path]}
      disabled={!manages}
      {...props}
    />
  )
  const flag = (path: string, label: string) => (
    <Switch
      label={label}
      checked={!!get(path)}
      onChange={(e) => set(path, e.currentTarget.checked)}
      disabled={!manages}
    />
  )
  return (
    <Stack maw={720}>
      <Title order={2}>Settings</Title>
      {!manages && <Text c="dimmed">Only owners and admins change these settings.</Text>}
      <LoadState loaded={loaded} empty="" isEmpty={() => false}>
        {() =>
          config && (
            <form
              onSubmit={async (e) => {
                e.preventDefault()
                setError(undefined)
                const { currentDocumentCount: _, ...edited } = config
                try {
                  // The service checks what the form changed and names each problem by its field.
                  const body = changedFrom((loaded.data?.config ?? {}) as Values, edited as Values) as ConfigChanges
                  const saved = await answer(client.PATCH('/api/v1/knowledge/config', { body }))
                  setConfig(saved.config)
                  await act('Settings', async () => undefined, 'Saved', [['config'], ['stats']])
                } catch (err) {
                  setError(err instanceof ApiError ? err : undefined)
                }
              }}
            >
              <Stack>
                <Paper withBorder p="sm">
                  <Stack gap="xs">
                    <Title order={3} size="h5">
                      Knowledge base
                    </Title>
                    {flag('enabled', 'Knowledge base enabled')}
                    <Group grow>
                      {num('maxDocuments', 'Maximum documents')}
                      {num('maxFileSize', 'Maximum file size (bytes)')}
                    </Group>
                    <Group grow>
                      {num('retentionDays', 'Retention (days, 0: keep)')}
                      {num('freshnessDays', 'Freshness (days)')}
                    </Group>
                    <MultiSelect
                      label="Allowed file types"
                      data={[...new Set([...Object.keys(FILE_TYPES), ...(config.allowedFileTypes ?? [])])].map(
                        (value) => ({ value, label: FILE_TYPES[value] ?? value }),
                      )}
                      value={config.allowedFileTypes ?? []}
                      onChange={(v) => set('allowedFileTypes', v)}
                      error={problems.allowedFileTypes}
                      disabled={!manages}
                    />
                    {flag('verification.enabled', 'Page verification')}
                  </Stack>
                </Paper>
                <Paper withBorder p="sm">
                  <Stack gap="xs">
                    <Title order={3} size="h5">
                      Ingestion
                    </Title>
                    <Group grow>
                      {num('ingestion.chunkSize', 'Chunk size (tokens)')}
                      {num('ingestion.chunkOverlap', 'Chunk overlap (tokens)')}
                    </Group>
                    {flag('ingestion.autoEmbed', 'Embed new entries')}
                  </Stack>
                </Paper>
                <Paper withBorder p="sm">
                  <Stack gap="xs">
                    <Title order={3} size="h5">
                      Search
                    </Title>
                    <Group grow>
                      <Select
                        label="Default mode"
                        data={['hybrid', 'text', 'vector']}
                        value={config.search?.defaultMode}
                        onChange={(v) => set('search.defaultMode', v)}
                        error={problems['search.defaultMode']}
                        disabled={!manages}
                      />
                      <Select
                        label="Fusion"
                        data={['score', 'rrf']}
                        value={config.search?.fusion}
                        onChange={(v) => set('search.fusion', v)}
                        error={problems['search.fusion']}
                        disabled={!manages}
                      />
                    </Group>
                    <Group grow>
                      {num('search.defaultLimit', 'Default limit')}
                      {num('search.minScore', 'Minimum score', { step: 0.05, decimalScale: 2 })}
                    </Group>
                  </Stack>
                </Paper>
                {error && <ErrorAlert error={error} title="The settings were not saved" />}
                {manages && (
                  <Button type="submit" w="fit-content">
                    Save settings
                  </Button>
                )}
              </Stack>
            </form>
          )
        }
      </LoadState>
      <AgentAccess />
    </Stack>
  )
}
