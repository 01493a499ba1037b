// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Counter {
    uint256 public number;

    function set(uint256 value) external {
        number = value;
    }

    function increment() external {
        number += 1;
    }
}
