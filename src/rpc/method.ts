/**
 * The shape of one entry of the method table: positional parameter codecs and a handler that works in domain
 * types. `method([address, optional(blockRef)], (ctx, addr, block) => …)` infers the handler's argument types.
 */
import type { RskNode } from '../node/node.js'
import type { Codec } from './codecs/primitives.js'

/** What every handler receives besides its decoded parameters. */
export interface HandlerContext {
  node: RskNode
  /** The wire name the method was called by (aliases share a handler). */
  method: string
}

type Decoded<C extends readonly Codec<unknown>[]> = { [K in keyof C]: C[K] extends Codec<infer T> ? T : never }

export interface MethodSpec {
  params: readonly Codec<unknown>[]
  handler: (ctx: HandlerContext, ...args: unknown[]) => unknown
  /**
   * The handler runs outside the node's queue and puts its own steps in it (`node.queue.run`), so that a long request
   * lets other requests run between its steps (hardhat_mine's turns of blocks). Its steps, not the request, are what
   * the queue serializes.
   */
  queuesItself?: true
}

export function method<const C extends readonly Codec<unknown>[]>(
  params: C,
  handler: (ctx: HandlerContext, ...args: Decoded<C>) => unknown,
): MethodSpec {
  return { params, handler: handler as MethodSpec['handler'] }
}

/** A method without parameters. */
export const noParams = (handler: (ctx: HandlerContext) => unknown): MethodSpec => method([], handler)

export type MethodTable = Record<string, MethodSpec>
