// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// A minimal ERC-1271 contract wallet for tests: a signature is valid when its owner (an EOA)
/// signed the hash. An EIP-191 personal_sign of a message by the owner is therefore valid for
/// hashMessage(message), which is what a payout-address proof asks the wallet. Test-only.
contract TestWallet1271 {
    bytes4 private constant MAGIC_VALUE = 0x1626ba7e;
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? MAGIC_VALUE : bytes4(0xffffffff);
    }
}
