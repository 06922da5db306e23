// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title TestUSDC
/// @notice Circle FiatToken-like test USDC for local chains and tests: 6 decimals, owner-only
/// mint, blacklist and pause, with Circle's function names and revert strings.
/// @dev Written lean instead of on OpenZeppelin's ERC20 so that, like FiatToken v2.2, the
/// blacklist flag lives in the high bit of the balance slot: checking a recipient costs no extra
/// storage read, so payout gas measured here tracks mainnet USDC instead of overstating it.
/// A max allowance is never decreased (OpenZeppelin semantics), so an approved spender pays no
/// allowance write per transfer.
contract TestUSDC {
    string public constant name = "USD Coin (test)";
    string public constant symbol = "USDC";
    uint8 public constant decimals = 6;

    uint256 private constant BLACKLISTED_FLAG = 1 << 255;
    uint256 private constant BALANCE_MASK = BLACKLISTED_FLAG - 1;

    // owner and paused share one slot: a transfer reads both with one SLOAD.
    address public owner;
    bool public paused;
    uint256 public totalSupply;
    mapping(address account => uint256) private _balanceAndBlacklistState;
    mapping(address owner => mapping(address spender => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Mint(address indexed minter, address indexed to, uint256 amount);
    event Blacklisted(address indexed account);
    event UnBlacklisted(address indexed account);
    event Pause();
    event Unpause();
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    modifier onlyOwner() {
        require(msg.sender == owner, "Ownable: caller is not the owner");
        _;
    }

    modifier whenNotPaused() {
        require(!paused, "Pausable: paused");
        _;
    }

    modifier notBlacklisted(address account) {
        require(!isBlacklisted(account), "Blacklistable: account is blacklisted");
        _;
    }

    constructor(address owner_) {
        require(owner_ != address(0), "Ownable: new owner is the zero address");
        owner = owner_;
        emit OwnershipTransferred(address(0), owner_);
    }

    function balanceOf(address account) external view returns (uint256) {
        return _balanceAndBlacklistState[account] & BALANCE_MASK;
    }

    function isBlacklisted(address account) public view returns (bool) {
        return _balanceAndBlacklistState[account] & BLACKLISTED_FLAG != 0;
    }

    function transfer(address to, uint256 value) external whenNotPaused returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        returns (bool)
    {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(value <= allowed, "ERC20: transfer amount exceeds allowance");
            unchecked {
                allowance[from][msg.sender] = allowed - value;
            }
        }
        _transfer(from, to, value);
        return true;
    }

    function approve(address spender, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(spender)
        returns (bool)
    {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function mint(address to, uint256 amount)
        external
        onlyOwner
        whenNotPaused
        notBlacklisted(to)
        returns (bool)
    {
        require(to != address(0), "FiatToken: mint to the zero address");
        uint256 supplyAfter = totalSupply + amount;
        // Keeps every balance below the flag bit, so additions never touch it.
        require(supplyAfter < BLACKLISTED_FLAG, "FiatToken: supply exceeds the balance limit");
        totalSupply = supplyAfter;
        unchecked {
            _balanceAndBlacklistState[to] += amount;
        }
        emit Mint(msg.sender, to, amount);
        emit Transfer(address(0), to, amount);
        return true;
    }

    function blacklist(address account) external onlyOwner {
        _balanceAndBlacklistState[account] |= BLACKLISTED_FLAG;
        emit Blacklisted(account);
    }

    function unBlacklist(address account) external onlyOwner {
        _balanceAndBlacklistState[account] &= BALANCE_MASK;
        emit UnBlacklisted(account);
    }

    function pause() external onlyOwner {
        paused = true;
        emit Pause();
    }

    function unpause() external onlyOwner {
        paused = false;
        emit Unpause();
    }

    function transferOwnership(address newOwner) external onlyOwner {
        require(newOwner != address(0), "Ownable: new owner is the zero address");
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// @dev Checks sender and recipient blacklist flags from the same slots it writes.
    function _transfer(address from, address to, uint256 value) private {
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 fromState = _balanceAndBlacklistState[from];
        require(fromState & BLACKLISTED_FLAG == 0, "Blacklistable: account is blacklisted");
        require(fromState & BALANCE_MASK >= value, "ERC20: transfer amount exceeds balance");
        unchecked {
            _balanceAndBlacklistState[from] = fromState - value;
        }
        // Read after the debit so a transfer to oneself stays balance-neutral.
        uint256 toState = _balanceAndBlacklistState[to];
        require(toState & BLACKLISTED_FLAG == 0, "Blacklistable: account is blacklisted");
        unchecked {
            // No overflow into the flag: a balance never exceeds totalSupply < 2^255.
            _balanceAndBlacklistState[to] = toState + value;
        }
        emit Transfer(from, to, value);
    }
}
