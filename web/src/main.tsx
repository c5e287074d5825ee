import '@mantine/core/styles.css'
import '@mantine/notifications/styles.css'
import '@mantine/dropzone/styles.css'
import 'diff2html/bundles/css/diff2html.min.css'
import './console.css'
import { MantineProvider, createTheme } from '@mantine/core'
import { Notifications } from '@mantine/notifications'
import { QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { EventsFollower } from './events'
import { SessionProvider } from './session'
import { queryClient } from './useApi'

// Darker shades, and text black or white by the background's luminance: every label reaches the
// contrast WCAG AA asks (4.5:1), which Mantine's default shade 6 with white text does not.
const theme = createTheme({ primaryShade: 9, autoContrast: true, luminanceThreshold: 0.15 })

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <MantineProvider theme={theme}>
      {/* Below, out of the header's way: a notification never covers the workspace switcher or Sign out. */}
      <Notifications position="bottom-right" limit={2} />
      <QueryClientProvider client={queryClient}>
        <SessionProvider>
          <EventsFollower>
            <App />
          </EventsFollower>
        </SessionProvider>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
)
