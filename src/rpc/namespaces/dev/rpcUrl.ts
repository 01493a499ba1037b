/**
 * anvil_setRpcUrl(url) (Anvil's; viem's test client `setRpcUrl`): on a fork, later remote reads go to `url`. An
 * extension: -32601 in hosted mode (methods.ts). docs/forking.md describes the checks.
 *
 * Anvil 1.7.1 takes any string, on a fork or not (without a fork it answers null and does nothing), and shows the URL
 * as given, credentials included, in anvil_nodeInfo. Here the URL must be http(s) and serve the same chain (the fork's
 * chain id, the forked block's hash: src/node/fork/switchRemote.ts), it is shown only redacted, and without a fork the
 * call is refused: a node that silently kept no remote would leave the caller believing reads went to `url`.
 */
import { invalidParams } from '../../../errors.js'
import type { Codec } from '../../codecs/primitives.js'
import { method, type HandlerContext, type MethodTable } from '../../method.js'
import { ok } from './names.js'
import { isForkUrl } from '../../../node/fork/fork.js'
import { checkRemote, switchRemote } from '../../../node/fork/switchRemote.js'

/** An http(s) URL. The text is never quoted back: it may hold a key. */
const forkUrl: Codec<string> = (v) => {
  if (!isForkUrl(v)) throw invalidParams('Invalid argument 0: the RPC URL must be an http:// or https:// URL.')
  try {
    new URL(v)
  } catch {
    throw invalidParams('Invalid argument 0: the RPC URL is not a valid URL.')
  }
  return v
}

/** The fork the request can replace the remote of, or -32602 saying there is none. */
function forkOf(node: HandlerContext['node']): NonNullable<HandlerContext['node']['fork']> {
  if (node.fork === undefined || node.options.fork === undefined) {
    throw invalidParams('anvil_setRpcUrl: this rsksim was not started with a fork (fork.url, --fork-url), so there is no remote to replace')
  }
  return node.fork
}

export const devRpcUrlMethods: MethodTable = {
  anvil_setRpcUrl: {
    // The new URL is asked outside the node's queue (a URL that does not answer holds no other request for its
    // timeout); the switch itself is one step in the queue, on the fork the check was made for.
    ...method([forkUrl], async (ctx, url) => {
      const { node } = ctx
      const fork = await node.queue.run(() => forkOf(node))
      const refused = await checkRemote(fork, url)
      if (refused !== undefined) throw invalidParams(`anvil_setRpcUrl: ${refused}`)
      return node.queue.run(() => {
        if (forkOf(node) !== fork) throw invalidParams('anvil_setRpcUrl: the node forked again (anvil_reset) while the URL was checked; ask again')
        // A reset without a URL then forks again from the URL in use (dev/node.ts `refork`): the fork's config is the
        // node's options.fork.
        switchRemote(fork, url)
        return ok(ctx)
      })
    }),
    queuesItself: true,
  },
}
