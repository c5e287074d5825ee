import '@mantine/core/styles.css'
import '@mantine/notifications/styles.css'
import '@mantine/dropzone/styles.css'
import 'diff2html/bundles/css/diff2html.min.css'
import './console.css'
import { MantineProvider } from '@mantine/core'
import { Notifications } from '@mantine/notifications'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { SessionProvider } from './session'

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <MantineProvider>
      <Notifications position="top-right" />
      <SessionProvider>
        <App />
      </SessionProvider>
    </MantineProvider>
  </StrictMode>,
)
