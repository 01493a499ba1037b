/**
 * eth_getProof (spec "Account proof object", "Method reference: state reads"). RSKj has no such method
 * (reference §9.1); the spec describes it, so it works (design §1.1). Proofs are Ethereum MPT proofs against the
 * block's `stateRoot` (docs/compatibility.md "Chain model").
 */
import { setLengthLeft } from '@ethereumjs/util'
import { invalidParams } from '../../../errors.js'
import { address, hexToBytesLoose, optional, show, type Codec } from '../../codecs/primitives.js'
import { blockRef, LATEST, type BlockSelector } from '../../codecs/block.js'
import { method, type MethodTable } from '../../method.js'
import { data, quantity } from '../../format/hex.js'
import { readBlock } from '../../resolve.js'
import { accountProof } from '../../../node/chain/proofs.js'
import type { RskNode } from '../../../node/node.js'
import type { BlockRecord } from '../../../node/chain/types.js'

/** Most storage keys in one request: a proof per key is built, so an unbounded list could stall the queue. */
export const MAX_PROOF_KEYS = 1024


/** One storage key: `0x` hex of at most 32 bytes, left-padded (geth accepts short keys such as `0x0`). */
const storageKey: Codec<Uint8Array> = (v) => {
  if (typeof v !== 'string' || !/^0[xX][0-9a-fA-F]{1,64}$/.test(v)) {
    throw invalidParams(`Invalid storage key ${show(v)}: expected 0x-prefixed hex of at most 32 bytes.`)
  }
  return setLengthLeft(hexToBytesLoose(v.slice(2)), 32)
}

const storageKeys: Codec<Uint8Array[]> = (v) => {
  if (!Array.isArray(v)) throw invalidParams(`Invalid storage keys ${show(v)}: expected an array.`)
  if (v.length > MAX_PROOF_KEYS) throw invalidParams(`Invalid storage keys: at most ${MAX_PROOF_KEYS} keys per request.`)
  return v.map(storageKey)
}

/**
 * The block a proof at `sel` is of, with the state root its state has now: the pending block's, computed inside the
 * pending block's checkpoint (its nodes join the trie store, as a mined block's would; a pool that did not change
 * gives the same); the head's after a dev-chain edit since it was mined (anvil_setBalance, …), which eth_getBalance
 * and eth_getStorageAt read, as Anvil 1.7.1 proves its current state (tried by hand) (Chain.editedRoot; the next block is built
 * on it); any other block as it is.
 */
export async function provenBlock(node: RskNode, sel: BlockSelector): Promise<BlockRecord> {
  const block = await readBlock(node, sel)
  const pending = sel.kind === 'tag' && sel.tag === 'pending'
  const root = pending ? await node.chain.state.getStateRoot() : block === node.chain.store.head ? await node.chain.editedRoot() : undefined
  return root === undefined ? block : { ...block, header: { ...block.header, stateRoot: root } }
}

export const ethProofMethods: MethodTable = {
  /**
   * `eth_getProof(address, storageKeys, block)`. Keys default to none and the block to `latest` (spec "Block
   * parameter forms"); besides a number and `latest`/`earliest`, the other state-read forms are accepted: a hash, an
   * EIP-1898 map, and `pending`, proven against the pending block's state root as `eth_getBalance` reads it there
   * (Anvil 1.7.1 answers the pending state too). An unknown block is -32600 `Block <n> not found`, as other state
   * reads.
   */
  eth_getProof: method([address, optional(storageKeys), optional(blockRef)], async ({ node }, addr, keys, sel) => {
    const proven = await provenBlock(node, sel ?? LATEST)
    const p = await accountProof(node.chain, proven, addr, keys ?? [])
    // Field order of the spec's table; key and value are QUANTITY (spec "Account proof object").
    return {
      address: data(p.address),
      balance: quantity(p.balance),
      codeHash: data(p.codeHash),
      nonce: quantity(p.nonce),
      storageHash: data(p.storageHash),
      accountProof: p.accountProof.map(data),
      storageProof: p.storageProof.map((s) => ({
        key: quantity(BigInt(data(s.key))),
        value: quantity(s.value),
        proof: s.proof.map(data),
      })),
    }
  }),
}
