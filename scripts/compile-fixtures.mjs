#!/usr/bin/env node
// Compile the Solidity test fixtures.
//
//   node scripts/compile-fixtures.mjs
//
// Reads test/fixtures/contracts/*.sol, compiles them with the bundled solc
// (standard JSON, optimizer on, 200 runs) and writes test/fixtures/contracts.json:
//   { "<ContractName>": { "abi": [...], "bytecode": "0x<creation code>", "deployedBytecode": "0x..." } }
//
// evmVersion is "cancun" by default (the simulated chain supports PUSH0, MCOPY,
// TLOAD/TSTORE, but not PREVRANDAO or blobs). Files listed in EVM_VERSION_OVERRIDES
// are compiled with another target: Env.sol uses "london" so block.difficulty is
// opcode 0x44 DIFFICULTY. Interfaces/abstract contracts (empty bytecode) and libraries of internal functions
// only (empty ABI, e.g. the console library of Console.sol) are skipped.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const solc = require('solc')

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const srcDir = join(root, 'test', 'fixtures', 'contracts')
const outFile = join(root, 'test', 'fixtures', 'contracts.json')

const DEFAULT_EVM_VERSION = 'cancun'
const EVM_VERSION_OVERRIDES = { 'Env.sol': 'london' }

const files = readdirSync(srcDir).filter((f) => f.endsWith('.sol')).sort()
if (files.length === 0) throw new Error(`no .sol files in ${srcDir}`)

// Group files by evmVersion so each group is one standard-JSON compilation.
const groups = new Map()
for (const f of files) {
  const v = EVM_VERSION_OVERRIDES[f] ?? DEFAULT_EVM_VERSION
  if (!groups.has(v)) groups.set(v, [])
  groups.get(v).push(f)
}

const artifacts = {}
let failed = false
for (const [evmVersion, group] of groups) {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(
      group.map((f) => [f, { content: readFileSync(join(srcDir, f), 'utf8') }]),
    ),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  for (const e of output.errors ?? []) {
    if (e.severity === 'error') failed = true
    // Warnings are expected (e.g. selfdestruct deprecation); print them briefly.
    console.error(`[${evmVersion}] ${e.severity}: ${e.formattedMessage ?? e.message}`)
  }
  if (failed) continue
  for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [name, c] of Object.entries(contracts)) {
      const bytecode = c.evm?.bytecode?.object ?? ''
      if (bytecode.length === 0) continue // interface / abstract
      if (c.abi.length === 0) continue // a library of internal functions: inlined into its users, never deployed
      if (artifacts[name]) throw new Error(`duplicate contract name ${name} (${file})`)
      artifacts[name] = {
        abi: c.abi,
        bytecode: `0x${bytecode}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      }
    }
  }
}
if (failed) {
  console.error('compilation failed')
  process.exit(1)
}

const sorted = Object.fromEntries(Object.keys(artifacts).sort().map((k) => [k, artifacts[k]]))
writeFileSync(outFile, JSON.stringify(sorted, null, 2) + '\n')
console.log(`solc ${solc.version()}: wrote ${Object.keys(sorted).length} artifacts to ${outFile}`)
for (const [name, a] of Object.entries(sorted)) {
  console.log(`  ${name}: ${(a.bytecode.length - 2) / 2} bytes creation, ${(a.deployedBytecode.length - 2) / 2} bytes runtime`)
}
