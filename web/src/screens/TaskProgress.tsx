import { Badge, Group, Paper, Progress, Text } from '@mantine/core'
import { useEffect, useState } from 'react'
import { answer, client } from '../api'
import { useFollowing } from '../events'
import { useApi } from '../useApi'

/** A task's status as a badge's colour. */
export const statusColor: Record<string, string> = {
  completed: 'green',
  processing: 'blue',
  pending: 'gray',
  failed: 'red',
}

/**
 * A task's steps and progress until it completes or fails, the error in words: reloaded when its
 * events arrive (or every second while the event stream is down).
 */
export const TaskProgress = ({ taskId, label, onDone }: { taskId: string; label: string; onDone?: () => void }) => {
  const following = useFollowing()
  const [finished, setFinished] = useState(false)
  const loaded = useApi(
    ['tasks', taskId],
    () => answer(client.GET('/api/v1/knowledge/tasks/{taskId}', { params: { path: { taskId } } })),
    { refetchInterval: following || finished ? false : 1000 },
  )
  const task = loaded.data
  const error = loaded.error?.message
  useEffect(() => {
    if (finished || (task?.status !== 'completed' && task?.status !== 'failed')) return
    setFinished(true)
    onDone?.()
  }, [task?.status, finished, onDone])
  const status = task?.status ?? 'pending'
  return (
    <Paper withBorder p="xs" data-testid="task" data-status={status}>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" truncate>
          {label}
        </Text>
        <Badge color={statusColor[status]}>{status}</Badge>
      </Group>
      <Progress value={task?.progress ?? 0} mt={4} aria-label={`${label}: ${task?.progress ?? 0}%`} />
      {task?.currentStep && status !== 'completed' && (
        <Text size="xs" c="dimmed">
          {task.currentStep}
        </Text>
      )}
      {task?.result?.warnings?.map((w) => (
        <Text key={w} size="xs" c="orange" data-testid="task-warning">
          {w}
        </Text>
      ))}
      {(task?.error || error) && (
        <Text size="sm" c="red" role="alert">
          {task?.error ?? error}
        </Text>
      )}
    </Paper>
  )
}
