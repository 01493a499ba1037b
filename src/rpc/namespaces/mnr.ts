/**
 * Merged mining (reference §3.4; RSKj `co/rsk/rpc/modules/mnr/MnrModuleImpl.java`, `co/rsk/mine/MinerServerImpl.java`)
 * and the Ethereum-style mining methods the spec describes (`eth_getWork`, `eth_submitWork`, `eth_submitHashrate`,
 * `eth_netHashrate`), which RSKj lacks.
 */
import { bytesToHex } from '@ethereumjs/util'
import { invalidParams, submitBlockError } from '../../errors.js'
import { data as dataCodec, hash32, scalarText, show, string, type Codec } from '../codecs/primitives.js'
import { method, noParams, type HandlerContext, type MethodTable } from '../method.js'
import { data, jsonHex, quantity } from '../format/hex.js'
import { rskBlockHash } from '../../node/rsk/header/header.js'
import {
  buildMergedMiningFields,
  difficultyToTarget,
  fieldsFromBitcoinBlock,
  fieldsFromBlockTransactions,
  fieldsFromPartialMerkle,
  validateMergedMining,
  type MergedMiningSubmission,
} from '../../node/rsk/mergedMining/mergedMining.js'
import type { Template } from '../../node/miner/miner.js'

/** RSKj's mnr arguments are hex without `0x` (its decoder refuses the prefix). */
const bareHex: Codec<Uint8Array> = (v) => {
  if (typeof v !== 'string' || v.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(v)) {
    throw invalidParams(`Invalid hex argument ${show(v)}: expected an even number of hex digits without 0x`)
  }
  return Uint8Array.from(Buffer.from(v, 'hex'))
}

/** Whitespace-separated 32-byte hashes, without `0x`. */
const hashList: Codec<Uint8Array[]> = (v) => {
  if (typeof v !== 'string') throw invalidParams('Invalid hash list: expected a string of hashes separated by spaces')
  return v.trim() === '' ? [] : v.trim().split(/\s+/).map((h) => {
    const b = bareHex(h)
    if (b.length !== 32) throw invalidParams(`Invalid hash ${h}: expected 32 bytes`)
    return b
  })
}

/**
 * A `String` argument of `Web3MnrModule` as Jackson's `StringDeserializer` reads it: a string as it is, a JSON number
 * or boolean as its text (`scalarText`), so a transaction count sent as the number `3` is the text `3`. Null is a
 * NullPointerException in `MnrModuleImpl` (-32603), and an object or array a Jackson mapping error (-32700): -32602
 * here.
 */
const javaString: Codec<string> = (v) => {
  const text = scalarText(v)
  if (text === undefined) throw invalidParams(`Invalid argument "${show(v)}": param should be a string.`)
  return text
}

/** The first argument of the two submit methods with a header: only logged by `MnrModuleImpl`, so any scalar or null. */
const ignored: Codec<undefined> = (v) => {
  if (v !== null && v !== undefined) javaString(v)
  return undefined
}

/**
 * The transaction count, `Integer.parseInt(text, 16)`: hex digits of any case after an optional sign, within a Java
 * `int` (RSKj's NumberFormatException, -32603, is -32602 here). The RSKIP92 proof builder does not use it.
 */
function txCount(text: string): number {
  const n = /^[+-]?[0-9a-fA-F]+$/.test(text) ? parseInt(text, 16) : NaN
  if (!(n >= -(2 ** 31) && n < 2 ** 31)) throw invalidParams(`Invalid transaction count ${text}: expected a Java int in hex without 0x`)
  return n
}

const target = (difficulty: bigint): string => '0x' + difficultyToTarget(difficulty).toString(16).padStart(64, '0')

/** ASCII of the import result, hex-encoded, as RSKj's `SubmittedBlockInfo` writes the enum name. */
const IMPORTED_BEST = jsonHex(new TextEncoder().encode('IMPORTED_BEST'))

/** Parses a submission; malformed Bitcoin data is a parameter error. */
function parse(build: () => MergedMiningSubmission): MergedMiningSubmission {
  try {
    return build()
  } catch (e) {
    throw invalidParams(`Invalid bitcoin data: ${e instanceof Error ? e.message : String(e)}`)
  }
}

/** `MinerServerImpl.processSolution`: find the template, check the proof of work, mine. */
async function submit({ node }: HandlerContext, s: MergedMiningSubmission) {
  const { hashForMergedMining, ...fields } = s
  const t = node.work.find(hashForMergedMining)
  const missing = () => submitBlockError(`Cannot publish block, could not find hash ${bytesToHex(hashForMergedMining)} in the cache`)
  if (t === undefined) throw missing()
  if (validateMergedMining(t.hashForMergedMining, t.difficulty, fields) !== null) {
    const hash = rskBlockHash({ ...t.header, ...fields }).slice()
    throw submitBlockError(
      `Invalid block supplied by miner: ${bytesToHex(hash).slice(2)} ${bytesToHex(t.hashForMergedMining).slice(2)} at height ${t.number}`,
    )
  }
  const block = await node.mineTemplate(t, fields)
  if (block === undefined) throw missing()
  return { blockImportedResult: IMPORTED_BEST, blockHash: block.hashHex, blockIncludedHeight: quantity(block.number) }
}

async function currentWork({ node }: HandlerContext): Promise<{ template: Template; notify: boolean }> {
  const pending = [...node.pool.content().pending.values()].flatMap((m) => [...m.values()].map((t) => t.hashHex))
  return node.work.get(pending)
}

/**
 * The client id of eth_submitHashrate: the spec's "random 32-byte hex", so at most 66 characters; a longer string is
 * refused before it is kept (a node that keeps whatever it is sent can be made to run out of memory).
 */
const clientId: Codec<string> = (v) => {
  const id = string(v)
  if (id.length > 66) throw invalidParams('Invalid client id: expected a 32-byte hex string of at most 66 characters')
  return id
}

export const mnrMethods: MethodTable = {
  /** `MinerWork`: hash for merged mining, target, fees as a decimal string, notify, parent hash. */
  mnr_getWork: noParams(async (ctx) => {
    const { template: t, notify } = await currentWork(ctx)
    return {
      blockHashForMergedMining: data(t.hashForMergedMining),
      target: target(t.difficulty),
      feesPaidToMiner: t.paidFees.toString(),
      notify,
      parentBlockHash: data(t.parentHash),
    }
  }),

  mnr_submitBitcoinBlock: method([javaString], (ctx, block) => {
    const bytes = bareHex(block)
    return submit(ctx, parse(() => fieldsFromBitcoinBlock(bytes)))
  }),

  /** The first argument (a block hash) is ignored, as in RSKj; the others are read in `MnrModuleImpl`'s order. */
  mnr_submitBitcoinBlockTransactions: method([ignored, javaString, javaString, javaString], (ctx, _hash, header, coinbase, txids) => {
    const [h, c, t] = [bareHex(header), bareHex(coinbase), hashList(txids)]
    return submit(ctx, parse(() => fieldsFromBlockTransactions(h, c, t)))
  }),

  /**
   * `MnrModuleImpl.submitBitcoinBlockPartialMerkle`: the empty-list check comes before any argument is decoded, the
   * count is read last.
   */
  mnr_submitBitcoinBlockPartialMerkle: method([ignored, javaString, javaString, javaString, javaString], (ctx, _hash, header, coinbase, hashes, count) => {
    if (hashes.trim() === '') throw submitBlockError("The list of merkle hashes can't be empty")
    const [h, c, m, n] = [bareHex(header), bareHex(coinbase), hashList(hashes), txCount(count)]
    return submit(ctx, parse(() => fieldsFromPartialMerkle(h, c, m, n)))
  }),

  /** [pow-hash, seed hash, target] (spec "Work data"): the pow-hash is the hash for merged mining; RSK has no DAG seed. */
  eth_getWork: noParams(async (ctx) => {
    const { template: t } = await currentWork(ctx)
    return [data(t.hashForMergedMining), '0x' + '00'.repeat(32), target(t.difficulty)]
  }),

  /**
   * True when the pow-hash names current work, which is then mined. RSK blocks carry Bitcoin proof of work, not an
   * ethash nonce, so rsksim builds the merged-mining proof itself and does not check the nonce (docs/compatibility.md).
   */
  eth_submitWork: method([dataCodec, hash32('pow hash'), hash32('mix digest')], async ({ node }, nonce, powHash) => {
    if (nonce.length !== 8) throw invalidParams('Invalid nonce: expected 8 bytes')
    const t = node.work.find(powHash)
    if (t === undefined) return false
    const fields = buildMergedMiningFields(t.hashForMergedMining, t.difficulty, t.timestamp)
    return (await node.mineTemplate(t, fields)) !== undefined
  }),

  eth_submitHashrate: method([hash32('hashrate'), clientId], ({ node }, rate, id) => {
    node.work.reportHashrate(id, BigInt(bytesToHex(rate)))
    return true
  }),

  /** A bare JSON number, as RSKj's `eth_netHashrate` (Java BigInteger). */
  eth_netHashrate: noParams(({ node }) => Number(node.work.hashrate)),
}
