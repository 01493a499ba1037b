// Hardhat 2: rsksim is an ordinary URL network. run.mjs starts it and passes its URL in RSKSIM_URL
// (by hand: `npx rsksim --client-version HardhatNetwork/rsksim` and http://127.0.0.1:4444).
require('@nomicfoundation/hardhat-ethers')

module.exports = {
  networks: {
    rsksim: { url: process.env.RSKSIM_URL ?? 'http://127.0.0.1:4444' },
  },
}
