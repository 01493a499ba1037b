// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Counter} from "../src/Counter.sol";

/// The few forge cheatcodes the script uses (forge-std's Vm interface; not a dependency here).
interface Vm {
    function startBroadcast() external;
    function stopBroadcast() external;
}

/// forge script script/Deploy.s.sol --rpc-url $RPC --private-key $KEY --broadcast --legacy
contract Deploy {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function run() external returns (Counter counter) {
        vm.startBroadcast();
        counter = new Counter();
        counter.set(41);
        counter.increment();
        vm.stopBroadcast();
    }
}
