/**
 * Impersonated senders (`anvil_impersonateAccount`, `hardhat_impersonateAccount`, `anvil_autoImpersonateAccount`):
 * `eth_sendTransaction` from them is accepted without a key, as Anvil and Hardhat accept it. The node never holds a
 * key for them, so signing methods refuse them.
 */
export class Impersonation {
  private readonly addresses = new Set<string>()
  /** Every sender is impersonated (`anvil_autoImpersonateAccount true`). */
  auto = false

  add(addressHex: string): void {
    this.addresses.add(addressHex)
  }

  remove(addressHex: string): void {
    this.addresses.delete(addressHex)
  }

  has(addressHex: string): boolean {
    return this.auto || this.addresses.has(addressHex)
  }

  clear(): void {
    this.addresses.clear()
    this.auto = false
  }
}
