#!/usr/bin/env node
// What a heap grew by between two V8 heap snapshots, by kind of object (node type and constructor name), divided by a
// count (blocks, cycles): bytes and objects per unit, biggest first. Pairs with `heap-blocks.mjs --snapshots dir`.
//
//   node bench/snapshot-diff.mjs dir/before.heapsnapshot dir/after.heapsnapshot 3000 [--top 25]
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

const { positionals, values } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } })
const [beforeFile, afterFile, perText = '1'] = positionals
if (!beforeFile || !afterFile) throw new Error('usage: snapshot-diff.mjs before.heapsnapshot after.heapsnapshot [count]')

/** Self size and count per "type name" (strings and numbers grouped by type). */
function totals(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'))
  const fields = snap.snapshot.meta.node_fields
  const types = snap.snapshot.meta.node_types[0]
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f))
  const out = new Map()
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + iType]]
    const name = ['string', 'concatenated string', 'sliced string', 'number'].includes(type) ? '' : snap.strings[snap.nodes[i + iName]].slice(0, 40)
    const key = `${type} ${name}`.trim()
    const t = out.get(key) ?? { count: 0, bytes: 0 }
    t.count++
    t.bytes += snap.nodes[i + iSize]
    out.set(key, t)
  }
  return out
}

const before = totals(beforeFile)
const after = totals(afterFile)
const per = Number(perText)
const rows = [...after].map(([key, a]) => {
  const b = before.get(key) ?? { count: 0, bytes: 0 }
  return { key, bytes: (a.bytes - b.bytes) / per, count: (a.count - b.count) / per }
})
rows.sort((x, y) => y.bytes - x.bytes)
console.log(`growth: ${rows.reduce((s, r) => s + r.bytes, 0).toFixed(0)} bytes per unit (snapshot self sizes)`)
for (const r of rows.slice(0, Number(values.top))) console.log(`${r.bytes.toFixed(1).padStart(9)} B ${r.count.toFixed(2).padStart(7)} objects  ${r.key}`)
