// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// A broken (or hostile) ERC-1271 wallet for tests: isValidSignature answers the magic value for
/// every hash and signature, so 65 random bytes would "prove" it. The service must refuse it
/// (api.md "Contract wallets": reason contract_accepts_any_signature). Test-only.
contract TestWalletAcceptAll {
    bytes4 private constant MAGIC_VALUE = 0x1626ba7e;

    function isValidSignature(bytes32, bytes calldata) external pure returns (bytes4) {
        return MAGIC_VALUE;
    }
}
