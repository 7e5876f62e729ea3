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
