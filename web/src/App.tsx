import { AppShell, Badge, Burger, Button, Group, NavLink, Select, Text, Title } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { Link, Route, Router, Switch, useLocation } from 'wouter'
import { useHashLocation } from 'wouter/use-hash-location'
import { answer, client } from './api'
import { AuditScreen } from './screens/Audit'
import { AuthorizeScreen } from './screens/Authorize'
import { CollectionsScreen } from './screens/Collections'
import { EntryScreen } from './screens/Entry'
import { KnowledgeScreen } from './screens/Knowledge'
import { PageScreen } from './screens/Page'
import { PagesScreen } from './screens/Pages'
import { RetrievalScreen } from './screens/Retrieval'
import { ReviewScreen } from './screens/Review'
import { SettingsScreen } from './screens/Settings'
import { SignIn } from './screens/SignIn'
import { useFollowing } from './events'
import { useSession } from './session'
import { act, useApi } from './useApi'

const Nav = ({ onNavigate }: { onNavigate: () => void }) => {
  const [location] = useLocation()
  const { manages } = useSession()
  // The review queue's count, for its badge: reloaded when a proposal's event arrives or a review is
  // made; while the event stream is down, at each move between screens as well.
  const following = useFollowing()
  const pending = useApi(['proposals', 'pending-count', following ? 'followed' : location], () =>
    answer(client.GET('/api/v1/proposals', { params: { query: { status: 'pending', limit: 1 } } })).catch(() => ({
      total: 0,
    })),
  )
  const links: Array<[string, string, number?]> = [
    ['/', 'Knowledge'],
    ['/retrieval', 'Retrieval testing'],
    ['/pages', 'Pages'],
    ['/review', 'Review queue', pending.data?.total],
    ['/collections', 'Collections and packs'],
    ...(manages ? ([['/audit', 'Audit']] as Array<[string, string]>) : []),
    ['/settings', 'Settings'],
  ]
  return (
    <nav aria-label="Main">
      {links.map(([href, label, count]) => (
        <NavLink
          key={href}
          component={Link}
          href={href}
          label={label}
          active={href === '/' ? location === '/' || location.startsWith('/entries') : location.startsWith(href)}
          onClick={onNavigate}
          rightSection={
            count ? (
              <Badge size="sm" color="orange" aria-label={`${count} pending`} data-testid="review-count">
                {count}
              </Badge>
            ) : null
          }
        />
      ))}
      <NavLink href="/docs" label="API reference" target="_blank" component="a" />
    </nav>
  )
}

const Header = ({ opened, toggle }: { opened: boolean; toggle: () => void }) => {
  const { me, signOut, switchWorkspace } = useSession()
  if (!me) return null
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group wrap="nowrap">
        <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
        <Title order={1} size="h4" visibleFrom="sm">
          Knowledge base
        </Title>
      </Group>
      <Group gap="xs" wrap="nowrap">
        <Select
          aria-label="Workspace"
          size="xs"
          w={{ base: 150, sm: 200 }}
          data={me.workspaces.map((w) => ({ value: w.id, label: w.name }))}
          value={me.current_workspace.id}
          allowDeselect={false}
          onChange={(id) =>
            id && id !== me.current_workspace.id && act('Switching workspace', () => switchWorkspace(id))
          }
        />
        <Badge variant="light" data-testid="role">
          {me.current_workspace.role}
        </Badge>
        <Text size="sm" visibleFrom="sm" data-testid="user">
          {me.name}
        </Text>
        <Button size="xs" variant="default" onClick={signOut}>
          Sign out
        </Button>
      </Group>
    </Group>
  )
}

export const App = () => {
  const { me, checking } = useSession()
  const [opened, { toggle, close }] = useDisclosure()
  if (!me) return <SignIn checking={checking} />
  return (
    <Router hook={useHashLocation}>
      <AppShell
        header={{ height: 56 }}
        navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }}
        padding="md"
      >
        <AppShell.Header>
          <Header opened={opened} toggle={toggle} />
        </AppShell.Header>
        <AppShell.Navbar p="xs">
          <Nav onNavigate={close} />
        </AppShell.Navbar>
        <AppShell.Main key={me.current_workspace.id}>
          <Switch>
            <Route path="/" component={KnowledgeScreen} />
            <Route path="/entries/:id">{(p) => <EntryScreen id={p.id} />}</Route>
            <Route path="/retrieval" component={RetrievalScreen} />
            <Route path="/pages" component={PagesScreen} />
            <Route path="/pages/:id">{(p) => <PageScreen id={p.id} />}</Route>
            <Route path="/review" component={ReviewScreen} />
            <Route path="/collections" component={CollectionsScreen} />
            <Route path="/audit" component={AuditScreen} />
            <Route path="/settings" component={SettingsScreen} />
            <Route path="/authorize" component={AuthorizeScreen} />
            <Route>
              <Text>Nothing here. Choose a screen from the menu.</Text>
            </Route>
          </Switch>
        </AppShell.Main>
      </AppShell>
    </Router>
  )
}
