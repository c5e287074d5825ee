import { settleCitations } from '../route'
import { entryTools } from './entries'
import { pageUndoTools } from './pageUndo'
import { pageTools } from './pages'
import type { Tool, ToolContext, ToolDeps } from './tool'

export { TOOL_SERVICES } from './tool'
export type { Tool, ToolContext, ToolDeps, ToolOutput } from './tool'

export const tools: Tool[] = [...pageTools, ...pageUndoTools, ...entryTools]

/** Runs a tool; a tool that reads first counts the searches still waiting (their citations show). */
export const runTool = async <A>(deps: ToolDeps, tool: Tool<A>, ctx: ToolContext, args: A) => {
  if (!tool.searches) await settleCitations(deps)
  return tool.run(deps, ctx, args)
}

/** The MCP name of a tool: `native:page_write` is `page_write`. */
export const mcpName = (tool: Tool) => tool.name.replace(/^native:/, '')
