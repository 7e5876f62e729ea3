package dev.parley.sfu.transport;

import dev.parley.sfu.net.PacketPath;

/** SRTP/SRTCP on the media port from a 5-tuple no ICE check bound (relays between SFUs claim theirs). Media thread. */
public interface UnboundPackets {
    /** True if the packet belonged to a relay (handled or dropped and counted there); false: nobody's. */
    boolean onSrtp(byte[] b, int off, int len, PacketPath path, long now);
}
