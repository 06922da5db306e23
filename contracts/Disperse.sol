// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

interface IDisperseToken {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @title Disperse
/// @notice Port of the well-known Disperse contract (disperse.app) to Solidity 0.8, kept only as
/// the gas baseline the BatchPayout benchmark is compared with. Any failing transfer reverts all.
contract Disperse {
    error LengthMismatch();
    error TransferFailed(uint256 index);

    /// @notice Pulls the total once, then transfers to each recipient (the original design).
    function disperseToken(IDisperseToken token, address[] calldata recipients, uint256[] calldata values)
        external
    {
        if (recipients.length != values.length) revert LengthMismatch();
        uint256 total = 0;
        for (uint256 i = 0; i < values.length; i++) {
            total += values[i];
        }
        if (!token.transferFrom(msg.sender, address(this), total)) revert TransferFailed(type(uint256).max);
        for (uint256 i = 0; i < recipients.length; i++) {
            if (!token.transfer(recipients[i], values[i])) revert TransferFailed(i);
        }
    }

    /// @notice One transferFrom from the sender per recipient.
    function disperseTokenSimple(IDisperseToken token, address[] calldata recipients, uint256[] calldata values)
        external
    {
        if (recipients.length != values.length) revert LengthMismatch();
        for (uint256 i = 0; i < recipients.length; i++) {
            if (!token.transferFrom(msg.sender, recipients[i], values[i])) revert TransferFailed(i);
        }
    }
}
