import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The console is built into web/dist, which the service serves at /. Everything it loads comes from
// there (no CDN, no inline script), so the page runs under the service's strict Content-Security-Policy.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Vite would inline small assets as data: URLs; the CSP allows them for images and fonts only.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 2000,
  },
  logLevel: 'warn',
})
