/**
 * The genesis block of a simulated network. Regtest follows RSKj `resources/genesis/rsk-dev.json`
 * (reference §7.2): timestamp 0, extraData "horse", difficulty 1, coinbase 0x3333…3333, the Bridge holding
 * 21,000,000 RBTC and the genesis accounts funded.
 */
import { Account, Address, hexToBytes } from '@ethereumjs/util'
import type { Chain } from './chain.js'
import type { BlockRecord } from './types.js'
import { EMPTY_TRIE_ROOT } from './tries.js'
import { flatHex } from './flatHex.js'
import { encodedRskHeaderWithMergedMiningLength, rskBlockHash, hashForMergedMining, type RskHeader } from '../rsk/header/header.js'
import { EMPTY_UNCLES_HASH, BLOCK_DIFFICULTY, blockSize } from '../miner/seal.js'

/** Bridge native contract (reference §7.6). */
export const BRIDGE_ADDRESS = hexToBytes('0x0000000000000000000000000000000001000006')
/** REMASC native contract (reference §7.6). */
export const REMASC_ADDRESS = hexToBytes('0x0000000000000000000000000000000001000008')
/** 21,000,000 RBTC, the Bridge's genesis balance. */
export const BRIDGE_GENESIS_BALANCE = 21_000_000n * 10n ** 18n
const GENESIS_COINBASE = hexToBytes('0x3333333333333333333333333333333333333333')
const GENESIS_EXTRA_DATA = new TextEncoder().encode('horse')

export interface GenesisSpec {
  accounts: { address: Uint8Array; balance: bigint }[]
  gasLimit: bigint
  minimumGasPrice: bigint
  timestamp: bigint
}

/**
 * The first block of a fork (src/node/fork): the forked block, whose state is the remote's with the funded accounts'
 * balances set over it (their nonce and code stay the remote's), as Hardhat and Anvil fund their accounts on a fork.
 */
export async function createForkGenesis(chain: Chain, block: BlockRecord, accounts: GenesisSpec['accounts']): Promise<void> {
  const state = chain.state
  // Asked together: one batch to the remote.
  const existing = await Promise.all(accounts.map((a) => state.getAccount(new Address(a.address))))
  await state.checkpoint()
  for (let i = 0; i < accounts.length; i++) {
    const account = existing[i] ?? new Account()
    account.balance = accounts[i]!.balance
    await state.putAccount(new Address(accounts[i]!.address), account)
  }
  await state.commit()
  chain.trees.alias(block.header.stateRoot, await state.rootNode())
  chain.store.append(block)
  chain.genesisTrees = chain.trees.mark()
}

/** Writes the genesis allocation into the chain's (empty) state and appends block 0. */
export async function createGenesis(chain: Chain, spec: GenesisSpec): Promise<BlockRecord> {
  const state = chain.state
  await state.checkpoint()
  await state.putAccount(new Address(BRIDGE_ADDRESS), new Account(0n, BRIDGE_GENESIS_BALANCE))
  for (const a of spec.accounts) await state.putAccount(new Address(a.address), new Account(0n, a.balance))
  await state.commit()
  const header: RskHeader = {
    parentHash: new Uint8Array(32),
    unclesHash: EMPTY_UNCLES_HASH,
    coinbase: GENESIS_COINBASE,
    stateRoot: await state.getStateRoot(),
    txTrieRoot: EMPTY_TRIE_ROOT,
    receiptTrieRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: BLOCK_DIFFICULTY,
    number: 0n,
    gasLimit: spec.gasLimit,
    gasUsed: 0n,
    timestamp: spec.timestamp,
    extraData: GENESIS_EXTRA_DATA,
    paidFees: 0n,
    minimumGasPrice: spec.minimumGasPrice,
    uncleCount: 0,
    version: 0,
    bitcoinMergedMiningHeader: Uint8Array.of(0),
    bitcoinMergedMiningMerkleProof: Uint8Array.of(0),
    bitcoinMergedMiningCoinbaseTransaction: Uint8Array.of(0),
  }
  const hash = rskBlockHash(header)
  const block: BlockRecord = {
    header,
    hash,
    hashHex: flatHex(hash),
    number: 0n,
    hashForMergedMining: hashForMergedMining(header),
    transactions: [],
    receipts: [],
    totalDifficulty: header.difficulty,
    // RSKj's size (seal.ts blockSize), the header with its three merged-mining fields (0x00 each in rsk-dev.json). It
    // counted the hash's encoding and one prefix byte: 469, not 473.
    size: blockSize(encodedRskHeaderWithMergedMiningLength(header), []),
  }
  chain.store.append(block)
  chain.genesisTrees = chain.trees.mark()
  return block
}
