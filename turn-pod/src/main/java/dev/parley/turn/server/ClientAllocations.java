package dev.parley.turn.server;

import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.allocation.AllocationTable;
import dev.parley.turn.link.ClientLink;

import java.net.InetSocketAddress;

/** Finds a client's allocation: over UDP by source address in the table, over a stream held by the connection. */
final class ClientAllocations {
    private final AllocationTable table;

    ClientAllocations(AllocationTable table) {
        this.table = table;
    }

    /** The UDP allocation of a client source address (hot path: no allocation). */
    Allocation udp(InetSocketAddress client) {
        return table.udp(client);
    }

    /** The allocation of this client link, or null. */
    Allocation of(ClientLink link) {
        if (link instanceof StreamClientLink s) {
            return s.allocation;
        }
        return table.udp(link.remote());
    }
}
