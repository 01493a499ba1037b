// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Counter} from "../src/Counter.sol";

interface Vm {
    function envAddress(string calldata name) external view returns (address);
}

/// forge test --fork-url $RPC: reads the Counter the script deployed to rsksim, then changes it on the local fork.
contract CounterForkTest {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
    Counter counter;

    function setUp() public {
        counter = Counter(vm.envAddress("COUNTER"));
    }

    function test_readsDeployedState() public view {
        require(counter.number() == 42, "the script left 42 on rsksim");
    }

    function test_incrementsOnTheFork() public {
        counter.increment();
        require(counter.number() == 43, "increment on the fork");
    }
}
