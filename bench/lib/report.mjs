// Turns the workers' results into the comparison table, the target checks of issue 6 item 2, and
// docs/performance.md. Pure functions of the results: no measuring here.
import { LABELS, PEERS } from './targets.mjs'

/** Rows in print order. better: which way wins; ratio: whether a ratio to the best peer means something. */
export function rows(c) {
  const n = (x) => x.toLocaleString('en-US')
  return [
    { id: 'startup', label: 'startup to first answer, ms', better: 'lower', ratio: true, digits: 0 },
    { id: 'transfers', label: `ERC-20 transfers (raw send + receipt), tx/s`, better: 'higher', ratio: true, digits: 0 },
    { id: 'transfers.cpu', label: `… CPU time per transfer, µs (in process: whole process, all threads; HTTP: server)`, better: 'lower', ratio: true, digits: 0 },
    { id: 'transfersWarm', label: `… warm: the same after ${n(c.warmTransfers)} more untimed, tx/s`, better: 'higher', ratio: true, digits: 0 },
    { id: 'transfersWarm.cpu', label: `… CPU time per warm transfer, µs`, better: 'lower', ratio: true, digits: 0 },
    { id: 'sends', label: `ERC-20 transfers by eth_sendTransaction (the node signs) + receipt, tx/s`, better: 'higher', ratio: true, digits: 0 },
    { id: 'sends.cpu', label: `… CPU time per transfer, µs`, better: 'lower', ratio: true, digits: 0 },
    { id: 'deploys', label: `contract deployments (raw send + receipt), deployments/s`, better: 'higher', ratio: true, digits: 0 },
    { id: 'deploys.cpu', label: `… CPU time per deployment, µs`, better: 'lower', ratio: true, digits: 0 },
    { id: 'multiTxBlocks', label: `ERC-20 transfers, ${c.perBlock} per block (automine off, evm_mine), tx/s`, better: 'higher', ratio: true, digits: 0 },
    { id: 'multiTxBlocks.cpu', label: `… CPU time per transfer, µs (in process: whole process; HTTP: server)`, better: 'lower', ratio: true, digits: 0 },
    { id: 'calls', label: 'eth_call balanceOf, calls/s', better: 'higher', ratio: true, digits: 0 },
    { id: 'estimates', label: 'eth_estimateGas of a transfer, estimates/s', better: 'higher', ratio: true, digits: 0 },
    { id: 'estimatesPending', label: '… the same at `pending` (as hardhat-ethers asks), estimates/s', better: 'higher', ratio: true, digits: 0 },
    { id: 'fixtures', label: 'fixture cycles (snapshot, 3 transfers, revert), cycles/s', better: 'higher', ratio: true, digits: 1 },
    { id: 'fixturesWarm', label: `… warm: the same after ${n(c.warmFixtures)} more untimed, cycles/s`, better: 'higher', ratio: true, digits: 1 },
    { id: 'getLogs', label: `eth_getLogs over ${n(c.logsRange)} blocks, ms`, better: 'lower', ratio: true, digits: 2 },
    { id: 'keccak', label: `eth_call keccakLoop(${n(c.keccakN)}), ms`, better: 'lower', ratio: true, digits: 1 },
    { id: 'arith', label: `eth_call arithLoop(${n(c.arithN)}), ms`, better: 'lower', ratio: true, digits: 1 },
    { id: 'storage', label: `eth_call storageLoop(${n(c.storageN)}), ms`, better: 'lower', ratio: true, digits: 1 },
    { id: 'blockNumber', label: 'eth_blockNumber, calls/s', better: 'higher', ratio: true, digits: 0 },
    { id: 'httpBlockNumber', label: `HTTP eth_blockNumber, ${c.httpConnections} connections, req/s`, better: 'higher', ratio: true, digits: 0 },
    { id: 'httpBlockNumber.cpu', label: `… server CPU time per eth_blockNumber, µs`, better: 'lower', ratio: true, digits: 1 },
    { id: 'httpCall', label: `HTTP eth_call balanceOf, ${c.httpConnections} connections, req/s`, better: 'higher', ratio: true, digits: 0 },
    { id: 'httpCall.cpu', label: `… server CPU time per eth_call, µs`, better: 'lower', ratio: true, digits: 1 },
    { id: 'mine.rate', label: `evm_mine ×${n(c.mineBlocks)}, blocks/s`, better: 'higher', ratio: true, digits: 0 },
    { id: 'mine.heap', label: `JS heap growth over ${n(c.mineBlocks)} blocks, MB`, better: 'lower', ratio: false, digits: 1, memory: true },
    { id: 'mine.rssGrowth', label: `RSS growth over ${n(c.mineBlocks)} blocks, MB`, better: 'lower', ratio: false, digits: 1, memory: true },
    { id: 'cyclesMemory', label: `memory growth from ${n(c.cyclesCheck[0])} to ${n(c.cyclesCheck[1])} fixture cycles, MB`, better: 'lower', ratio: false, digits: 1, memory: true },
  ]
}

function fmt(v, digits) {
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

/** Ratio of a value to the best peer's on the row, oriented so that > 1 is better than that peer. */
function ratio(row, value, best) {
  if (!best || !value) return undefined
  return row.better === 'higher' ? value / best : best / value
}

function bestPeer(row, results) {
  let best
  for (const p of PEERS) {
    const v = results[p]?.[row.id]?.value
    if (v === undefined) continue
    if (best === undefined || (row.better === 'higher' ? v > best : v < best)) best = v
  }
  return best
}

function cell(row, r, best) {
  if (!r) return 'not run'
  if (r.skip) return '—'
  if (r.na) return `n/a (${r.na.replace(/\|/g, '\\|')})`
  let s = fmt(r.value, row.digits)
  if (row.ratio) {
    const q = ratio(row, r.value, best)
    if (q !== undefined) s += ` (${q >= 10 ? q.toFixed(0) : q.toFixed(2)}x)`
  }
  if (r.scaled) s += ' ¹'
  return s
}

/** The comparison table, as Markdown. */
export function table(results, targets, c) {
  const head = `| workload | ${targets.map((t) => LABELS[t]).join(' | ')} |`
  const sep = `| --- | ${targets.map(() => '---:').join(' | ')} |`
  const lines = [head, sep]
  for (const row of rows(c)) {
    const best = bestPeer(row, results)
    lines.push(`| ${row.label} | ${targets.map((t) => cell(row, results[t]?.[row.id], best)).join(' | ')} |`)
  }
  return lines.join('\n')
}

/** Per-cell details (counts, memory before → after, latency), for the rows that carry them. */
export function details(results, targets, c) {
  const lines = [`| workload | ${targets.map((t) => LABELS[t]).join(' | ')} |`, `| --- | ${targets.map(() => '---').join(' | ')} |`]
  for (const row of rows(c)) {
    const ds = targets.map((t) => results[t]?.[row.id]?.detail ?? '')
    if (ds.some(Boolean)) lines.push(`| ${row.label} | ${ds.join(' | ')} |`)
  }
  return lines.join('\n')
}

const v = (results, t, id) => results[t]?.[id]?.value

/** Issue 6 item 2's targets, each checked against this run's numbers. */
export function checks(results, c) {
  const out = []
  const rowById = Object.fromEntries(rows(c).map((r) => [r.id, r]))
  const perfRows = rows(c).filter((r) => !r.memory)
  const cmp = (row, mine, theirs) => (row.better === 'higher' ? mine / theirs : theirs / mine) // > 1: rsksim better

  // 1. In process ahead of Hardhat/EDR; 1b. the same for the warm rows (a process past V8's compilation), reported
  //    beside item 1, not instead of it.
  const aheadOfHardhat = (id) => {
    const a = v(results, 'rsksim', id)
    const b = v(results, 'hardhat', id)
    if (a === undefined || b === undefined) return { id, met: false, text: `${rowById[id].label}: not measured` }
    const q = cmp(rowById[id], a, b)
    return { id, met: q > 1, text: `${rowById[id].label}: rsksim ${fmt(a, rowById[id].digits)} vs Hardhat ${fmt(b, rowById[id].digits)} (${q.toFixed(2)}x)` }
  }
  const t1 = ['startup', 'transfers', 'calls', 'fixtures', 'getLogs', 'blockNumber'].map(aheadOfHardhat)
  out.push({ title: 'In process, ahead of Hardhat/EDR on startup, transfers, calls, fixture cycles, eth_getLogs, eth_blockNumber', items: t1 })
  const t1w = ['transfersWarm', 'fixturesWarm'].map(aheadOfHardhat)
  out.push({ title: 'In process and warm, ahead of Hardhat/EDR on transfers and fixture cycles', items: t1w })

  // 2. ≥ 10x Ganache on every row both measured.
  const t2 = perfRows
    .filter((r) => v(results, 'rsksim', r.id) !== undefined && v(results, 'ganache', r.id) !== undefined)
    .map((r) => {
      const q = cmp(r, v(results, 'rsksim', r.id), v(results, 'ganache', r.id))
      return { id: r.id, met: q >= 10, text: `${r.label}: ${q.toFixed(2)}x Ganache` }
    })
  out.push({ title: 'In process, at least 10x Ganache on every row', items: t2 })

  // 3. Compute-heavy calls within 2x of EDR.
  const t3 = ['keccak', 'arith', 'storage'].map((id) => {
    const a = v(results, 'rsksim', id)
    const b = v(results, 'hardhat', id)
    if (a === undefined || b === undefined) return { id, met: false, text: `${rowById[id].label}: not measured` }
    return { id, met: a <= 2 * b, text: `${rowById[id].label}: rsksim ${fmt(a, 1)} ms vs EDR ${fmt(b, 1)} ms (${(a / b).toFixed(1)}x EDR's time)` }
  })
  out.push({ title: 'Compute-heavy eth_calls within 2x of Hardhat/EDR', items: t3 })

  // 4. Over HTTP ahead of Anvil on every row both measured.
  const t4 = perfRows
    .filter((r) => v(results, 'rsksim-http', r.id) !== undefined && v(results, 'anvil', r.id) !== undefined)
    .map((r) => {
      const q = cmp(r, v(results, 'rsksim-http', r.id), v(results, 'anvil', r.id))
      return { id: r.id, met: q > 1, text: `${r.label}: ${q.toFixed(2)}x Anvil` }
    })
  out.push({ title: 'Over HTTP, ahead of Anvil on every row', items: t4 })

  // 5. Memory flat: heap growth over the mined blocks at most 2 KB per block (the stored blocks themselves), and
  //    heap after the last fixture cycle within 10 % of heap after the first hundred.
  const t5 = []
  for (const t of ['rsksim', 'rsksim-http']) {
    const h = results[t]?.['mine.heap']
    if (h?.value !== undefined) {
      const perBlock = (h.value * 1024) / h.blocks
      t5.push({ id: `${t}.mine`, met: perBlock <= 2, text: `${LABELS[t]}: heap ${h.before.toFixed(1)} → ${h.after.toFixed(1)} MB over ${h.blocks.toLocaleString('en-US')} blocks (${perBlock.toFixed(2)} KB/block; limit 2)` })
    } else t5.push({ id: `${t}.mine`, met: false, text: `${LABELS[t]}: blocks not measured` })
    const cy = results[t]?.cyclesMemory
    if (cy?.value !== undefined) {
      t5.push({ id: `${t}.cycles`, met: cy.after <= cy.before * 1.1, text: `${LABELS[t]}: ${cy.detail} (limit +10 %)` })
    } else t5.push({ id: `${t}.cycles`, met: false, text: `${LABELS[t]}: cycles not measured` })
  }
  out.push({ title: `Memory flat over ${c.mineBlocks.toLocaleString('en-US')} blocks (and over fixture cycles)`, items: t5 })
  return out
}

export function checksMarkdown(list) {
  const lines = []
  for (const group of list) {
    const met = group.items.length > 0 && group.items.every((i) => i.met)
    lines.push(`- **${group.title}: ${met ? 'met' : 'not met'}**`)
    for (const i of group.items) lines.push(`  - ${i.met ? 'met' : '**not met**'}: ${i.text}`)
  }
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------------------------------
// The fork workload (issue 16, lib/fork.mjs): its own table, one column per measurement.

const FORK_LABELS = {
  'rsksim.cold': 'rsksim fork, cold',
  'rsksim.warm': 'rsksim fork, warm',
  'rsksim.local': 'rsksim, no fork (reference)',
  'anvil.cold': 'Anvil fork, cold',
  'anvil.warm': 'Anvil fork, warm',
}

function forkRows(fork) {
  const n = fork.remote?.transfers ?? 200
  const calls = (phase) => (r) => (r[phase] ? `${fmt(r[phase].calls, 0)} / ${fmt(r[phase].httpRequests, 0)}` : '')
  return [
    { label: 'startup to first answer, ms', cell: (r) => fmt(r.startupMs, 0) },
    { label: '… remote JSON-RPC calls / HTTP requests during startup', cell: calls('startup') },
    { label: `${fmt(n, 0)} transfers (nonce, raw send, receipt), s`, cell: (r) => (r.transfersMs === undefined ? undefined : fmt(r.transfersMs / 1000, 2)), measured: true },
    { label: '… transfers/s', cell: (r) => (r.tps === undefined ? undefined : fmt(r.tps, 1)), measured: true },
    { label: '… remote JSON-RPC calls / HTTP requests during the transfers', cell: calls('transfers'), measured: true },
    { label: '… CPU time per transfer, µs (rsksim: whole process; Anvil: its process)', cell: (r) => (r.cpuUsPerTx === undefined ? undefined : fmt(r.cpuUsPerTx, 0)), measured: true },
    { label: "… the remote's CPU time during the transfers, ms (remote rsksim + proxy)", cell: (r) => (r.transfers ? fmt(r.transfers.remoteCpuMs, 0) : undefined), measured: true },
    { label: 'fork cache on disk after the run, KB', cell: (r) => (r.cacheBytes === undefined ? (r.loadMs !== undefined ? '—' : undefined) : fmt(r.cacheBytes / 1024, 0)), measured: true },
  ]
}

/** The fork workload's table, as Markdown; '' when it did not run. */
export function forkTable(fork) {
  if (!fork) return ''
  if (fork.skip) return `Fork workload: skipped (${fork.skip}).`
  if (fork.na) return `Fork workload: n/a (${fork.na}).`
  const ids = Object.keys(FORK_LABELS).filter((id) => fork.targets.includes(id.split('.')[0]))
  const lines = [`| fork workload | ${ids.map((id) => FORK_LABELS[id]).join(' | ')} |`, `| --- | ${ids.map(() => '---:').join(' | ')} |`]
  for (const row of forkRows(fork)) {
    const cells = ids.map((id) => {
      const r = fork.cells[id]
      if (!r) return 'not run'
      if (r.na && (row.measured || r.startupMs === undefined)) return `n/a (${r.na.replace(/\|/g, '\\|')})`
      return row.cell(r) ?? '—'
    })
    lines.push(`| ${row.label} | ${cells.join(' | ')} |`)
  }
  return lines.join('\n')
}

/** What the fork workload's remote was, and the calls it answered per method, per cell. */
export function forkDetails(fork) {
  if (!fork || fork.skip || fork.na) return ''
  const r = fork.remote
  const out = [
    `Remote: rsksim (\`startServer\`, own process, behind a counting proxy), chain id ${r.chainId}, ${fmt(r.accounts, 0)} funded accounts, ` +
      `\`Token\` at ${r.token} with ${fmt(r.holders, 0)} holders; set up in ${fmt(r.setupMs / 1000, 1)} s; forked at its head, block ${r.block}. ` +
      `Load average (1 min) ${fork.load.map((x) => x.toFixed(2)).join(' → ')}${fork.rounds > 1 ? `; ${fork.rounds} rounds, each cell the round with the median transfer time` : ''}.`,
    '',
    '| measurement | remote calls during startup, by method | remote calls during the transfers, by method |',
    '| --- | --- | --- |',
  ]
  const byMethod = (m) => Object.entries(m ?? {}).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'
  for (const [id, label] of Object.entries(FORK_LABELS)) {
    const c = fork.cells[id]
    if (!c) continue
    const extra = [c.loadMs !== undefined ? `state loaded in ${fmt(c.loadMs, 0)} ms after startup` : '', c.gasPrice !== undefined ? `gas price ${c.gasPrice}, a transfer's gas ${fmt(c.gasUsed ?? 0, 0)}` : '', c.rounds?.length > 1 ? `tx/s by round ${c.rounds.map((x) => x.toFixed(1)).join(' / ')}` : '', c.na ? `n/a: ${c.na.replace(/\|/g, '\\|')}` : '']
      .filter(Boolean)
      .join('; ')
    out.push(`| ${label}${extra ? ` (${extra})` : ''} | ${c.startup ? byMethod(c.startup.methods) : '—'} | ${c.transfers ? byMethod(c.transfers.methods) : '—'} |`)
  }
  return out.join('\n')
}
