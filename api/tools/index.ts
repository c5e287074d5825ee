import * as E from 'fp-ts/Either'
import type { Tool, ToolContext, ToolDeps, ToolOutput } from './tool'

export { TOOL_SERVICES } from './tool'
export type { Tool, ToolContext, ToolDeps, ToolOutput } from './tool'

/** Runs a tool. */
export const runTool = async <A, O>(deps: ToolDeps, tool: Tool<A, O>, ctx: ToolContext, args: A) => {
  // Encoded by the output codec: the answer has exactly the fields its outputSchema declares.
  return E.map((out: ToolOutput<O>) => ({ ...out, data: tool.output.encode(out.data) }))(
    await tool.run(deps, ctx, args),
  )
}

/** The MCP name of a tool: `native:page_write` is `page_write`. */
export const mcpName = (tool: Tool) => tool.name.replace(/^native:/, '')
