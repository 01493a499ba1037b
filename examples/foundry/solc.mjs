#!/usr/bin/env node
// A `solc` for forge made of the npm `solc` package (the compiler built to WebAssembly), for machines where forge
// cannot download a native compiler. forge calls `solc --version` and `solc --standard-json [paths flags]` with the
// input on stdin (sources with their content); foundry.toml points `solc` here. The flags forge adds for file access
// (--allow-paths, --base-path, --include-path) concern reading files, which the standard JSON input already carries.
import { readFileSync } from 'node:fs'
import solc from 'solc'

if (process.argv.includes('--version')) {
  // Native solc prints this shape; forge reads the version from the `Version:` line.
  console.log(`solc, the solidity compiler commandline interface\nVersion: ${solc.version()}`)
} else if (process.argv.includes('--standard-json')) {
  const input = readFileSync(0, 'utf8')
  const findImports = (path) => {
    try {
      return { contents: readFileSync(path, 'utf8') }
    } catch {
      return { error: `File not found: ${path}` }
    }
  }
  process.stdout.write(solc.compile(input, { import: findImports }))
} else {
  console.error('solc.mjs: only --version and --standard-json are supported')
  process.exitCode = 1
}
