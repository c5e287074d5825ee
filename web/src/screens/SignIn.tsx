import { Button, Center, Loader, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { ErrorAlert } from '../components'
import { useSession } from '../session'
import { asApiError } from '../useApi'
import type { ApiError } from '../api'

/** Sign in with an access token, as the API issues them; it is kept for this browser tab only. */
export const SignIn = ({ checking }: { checking: boolean }) => {
  const { signIn } = useSession()
  const [token, setToken] = useState('')
  const [error, setError] = useState<ApiError>()
  const [busy, setBusy] = useState(false)
  if (checking)
    return (
      <Center h="100vh">
        <Loader aria-label="Checking your session" />
      </Center>
    )
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="lg" w="100%" maw={420} component="main">
        <form
          onSubmit={async (e) => {
            e.preventDefault()
            setBusy(true)
            setError(undefined)
            await signIn(token.trim()).catch((err) => setError(asApiError(err)))
            setBusy(false)
          }}
        >
          <Stack>
            <Title order={1} size="h3">
              Sign in
            </Title>
            <Text size="sm" c="dimmed">
              Paste an access token issued for you. It is kept in this tab's session storage only and cleared when you
              sign out.
            </Text>
            <PasswordInput
              label="Access token"
              required
              value={token}
              onChange={(e) => setToken(e.currentTarget.value)}
              autoComplete="off"
            />
            {error && <ErrorAlert error={error} title="Sign-in failed" />}
            <Button type="submit" loading={busy} disabled={!token.trim()}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  )
}
