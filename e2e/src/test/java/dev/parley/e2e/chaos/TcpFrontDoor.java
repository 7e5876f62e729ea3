package dev.parley.e2e.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * The Kubernetes Service in front of the controller pods: a loopback TCP relay that hands each new connection to the
 * next controller that accepts it (round robin, dead ones skipped). Browsers load the web app and call the REST API
 * through it, so killing a controller does not take the page's origin down; the signaling socket still goes
 * straight to the pod named in {@code signaling_endpoint}, as in a cluster. With one backend it is a plain relay
 * that can be {@link #cut} (a controller's path to one etcd member).
 */
final class TcpFrontDoor implements AutoCloseable {
    private final ServerSocket server;
    private final List<Integer> backends = new CopyOnWriteArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    private volatile boolean cut;

    TcpFrontDoor() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        Thread.ofPlatform().daemon().name("front-door").start(this::acceptLoop);
    }

    int port() {
        return server.getLocalPort();
    }

    void setBackends(List<Integer> ports) {
        backends.clear();
        backends.addAll(ports);
    }

    /** A network partition: every open connection is reset and new ones are closed at once, until {@link #mend}. */
    void cut() {
        cut = true;
        open.forEach(TcpFrontDoor::closeQuietly);
    }

    void mend() {
        cut = false;
    }

    /** Open client connections right now (for the socket baseline). */
    int openConnections() {
        open.removeIf(Socket::isClosed);
        return open.size() / 2;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Thread.ofVirtual().start(() -> relay(client));
            } catch (IOException e) {
                if (closed) return;
            }
        }
    }

    private void relay(Socket client) {
        if (cut) {
            closeQuietly(client);
            return;
        }
        Socket up = connect(p -> true);
        if (up == null) {
            closeQuietly(client);
            return;
        }
        open.add(client);
        open.add(up);
        Thread.ofVirtual().start(() -> pipe(client, up));
        pipe(up, client);
    }

    private Socket connect(IntPredicate ok) {
        int n = backends.size();
        for (int i = 0; i < n; i++) {
            int port = backends.get(Math.floorMod(next.getAndIncrement(), n));
            if (!ok.test(port)) continue;
            try {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
                s.setTcpNoDelay(true);
                return s;
            } catch (IOException e) {
                // refused: that pod is down, try the next one
            }
        }
        return null;
    }

    private static void pipe(Socket from, Socket to) {
        byte[] buf = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side went away
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly0();
        open.forEach(TcpFrontDoor::closeQuietly);
    }

    private void closeQuietly0() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
