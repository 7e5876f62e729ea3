package dev.parley.testsupport.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/**
 * Finds loopback ports that are free right now. The OS picks them (bind to port 0), so two JVMs running
 * tests side by side rarely collide; there is still a window between "free" and "used by the real
 * server", so fixtures that start processes retry on bind failure.
 */
public final class FreePorts {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** Ports handed out by this JVM, so two calls in a row never return the same port. */
    private static final Set<Integer> handedOut = new HashSet<>();

    private FreePorts() {
    }

    /** A TCP port on 127.0.0.1 that nothing listens on. */
    public static int tcp() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress(LOOPBACK, 0));
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("no free TCP port on loopback", e);
            }
            if (remember(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no fresh free TCP port on loopback after 50 attempts");
    }

    /** A UDP port on 127.0.0.1 that nothing is bound to. */
    public static int udp() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("no free UDP port on loopback", e);
            }
            if (remember(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no fresh free UDP port on loopback after 50 attempts");
    }

    /** A port free for both TCP and UDP (e.g. TURN's 3478-style listener). */
    public static int tcpAndUdp() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = tcp();
            try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, port))) {
                if (socket.getLocalPort() == port) {
                    return port;
                }
            } catch (IOException e) {
                // UDP side taken: try another
            }
        }
        throw new IllegalStateException("no port free for both TCP and UDP on loopback after 50 attempts");
    }

    /**
     * The first of {@code count} consecutive ports each free for both TCP and UDP right now, none handed out before
     * (an SFU with n media workers binds UDP and ICE-TCP at base .. base + n - 1, so base + 1 must be free too).
     * Every port of the range is remembered, so a later call never hands out one inside it.
     */
    public static int tcpAndUdpRange(int count) {
        if (count < 1) throw new IllegalArgumentException("count must be >= 1");
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = tcp();
            if (base + count - 1 > 65535) continue;
            if (rangeFree(base, count) && rememberRange(base + 1, count - 1)) return base;
        }
        throw new IllegalStateException("no " + count + " consecutive ports free for TCP and UDP on loopback");
    }

    private static boolean rangeFree(int base, int count) {
        for (int port = base; port < base + count; port++) {
            if (port != base && handedOutContains(port)) return false;
            try (ServerSocket t = new ServerSocket()) {
                t.setReuseAddress(false);
                t.bind(new InetSocketAddress(LOOPBACK, port));
                try (DatagramSocket u = new DatagramSocket(new InetSocketAddress(LOOPBACK, port))) {
                    if (u.getLocalPort() != port) return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    private static synchronized boolean handedOutContains(int port) {
        return handedOut.contains(port);
    }

    private static synchronized boolean rememberRange(int from, int count) {
        for (int port = from; port < from + count; port++) if (handedOut.contains(port)) return false;
        for (int port = from; port < from + count; port++) handedOut.add(port);
        return true;
    }

    /** True if something accepts TCP connections on 127.0.0.1:port. */
    public static boolean isListening(int port) {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new InetSocketAddress(LOOPBACK, port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static synchronized boolean remember(int port) {
        return handedOut.add(port);
    }
}
