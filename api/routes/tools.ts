import * as E from 'fp-ts/Either'
import { toolAnswer } from './answers'
import * as t from 'io-ts'
import { fail } from '../../domain/shared'
import { authorize } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import { TOOL_SERVICES, type Tool, runTool } from '../tools'
import { describeErrors } from '../validation'

/** Tool execution of the tools the capabilities serve: x-api-key, body { arguments }. */
export const toolRoutes = (tools: Tool[]): AnyRoute[] => [
  route({
    method: 'post',
    path: '/api/v1/tools/:tool/execute',
    response: toolAnswer(tools),
    tag: 'tools',
    auth: 'apiKey',
    summary: 'Execute a tool with an API key',
    params: t.type({ tool: c.string(1, 100) }),
    body: c.object({ arguments: t.UnknownRecord }, {}),
    uses: TOOL_SERVICES,
    handler: async ({ params, body, identity, command }, deps) => {
      if (identity.kind !== 'apiKey') throw new Error('tools need an API key')
      const tool = tools.find((x) => x.name === params.tool)
      if (!tool)
        return fail('NOT_FOUND', `no tool named ${params.tool}`, [
          `tool: one of ${tools.map((x) => x.name).join(', ')}`,
        ])
      authorize(identity, tool.permission)
      const args = tool.arguments.decode(body.arguments)
      if (E.isLeft(args))
        return fail('VALIDATION_ERROR', 'the tool arguments are not valid', describeErrors(args.left, 'arguments.'))
      // Through REST the agent is the API key's name (an MCP session names itself at initialize).
      return runTool(
        deps,
        tool,
        { workspaceId: identity.workspaceId, client: identity.name, keyId: identity.keyId, command },
        args.right,
      )
    },
  }),
]
