import { type ReactNode, createContext, useCallback, useContext, useEffect, useState } from 'react'
import { type Answer, answer, client, onSignedOut, tokenStore } from './api'
import { queryClient } from './useApi'

export type Role = 'owner' | 'admin' | 'editor' | 'viewer'

/** The signed-in user, as token validation answers it. */
export type Me = Answer<'/api/v1/auth/validate', 'post'>['user']

interface Session {
  me?: Me
  /** Whether the stored token is being checked. */
  checking: boolean
  signIn(token: string): Promise<void>
  signOut(): void
  switchWorkspace(id: string): Promise<void>
  /** Whether the role may write (editor and above); a viewer sees no write controls. */
  canWrite: boolean
  /** Whether the role manages the workspace (owner, admin). */
  manages: boolean
}

const SessionContext = createContext<Session | undefined>(undefined)

export const useSession = () => {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside SessionProvider')
  return session
}

/** The signed-in user: the token lives in session storage only, and signing out clears it. */
export const SessionProvider = ({ children }: { children: ReactNode }) => {
  const [me, setMe] = useState<Me>()
  const [checking, setChecking] = useState(() => tokenStore.get() !== null)

  const signOut = useCallback(() => {
    tokenStore.clear()
    // Reads of the session that ended are not another session's.
    queryClient.clear()
    setMe(undefined)
  }, [])

  const signIn = useCallback(async (token: string) => {
    const data = await answer(client.POST('/api/v1/auth/validate', { headers: { authorization: `Bearer ${token}` } }))
    tokenStore.set(token)
    queryClient.clear()
    setMe(data.user)
  }, [])

  const switchWorkspace = useCallback(
    async (id: string) => {
      const data = await answer(client.POST('/api/v1/auth/switch-workspace', { body: { workspace_id: id } }))
      await signIn(data.access_token)
    },
    [signIn],
  )

  useEffect(() => onSignedOut(signOut), [signOut])
  useEffect(() => {
    const token = tokenStore.get()
    if (!token) return
    signIn(token)
      .catch(signOut)
      .finally(() => setChecking(false))
  }, [signIn, signOut])

  const role = me?.current_workspace.role as Role | undefined
  return (
    <SessionContext.Provider
      value={{
        me,
        checking,
        signIn,
        signOut,
        switchWorkspace,
        canWrite: role === 'owner' || role === 'admin' || role === 'editor',
        manages: role === 'owner' || role === 'admin',
      }}
    >
      {children}
    </SessionContext.Provider>
  )
}
