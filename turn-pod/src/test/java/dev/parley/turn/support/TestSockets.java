package dev.parley.turn.support;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Loopback clients and peer sockets for relay tests, all closed together when the test ends. */
public final class TestSockets implements AutoCloseable {
    private final List<AutoCloseable> open = new ArrayList<>();

    /** Closes {@code c} with the rest. */
    public <T extends AutoCloseable> T track(T c) {
        open.add(c);
        return c;
    }

    public TestTurnClient udpClient(InetSocketAddress server) throws IOException {
        return track(TestTurnClient.udp(server));
    }

    /** A UDP peer on {@code ip} (any port) whose receives time out after 1.5 s. */
    public DatagramSocket peer(String ip) throws IOException {
        DatagramSocket s = track(new DatagramSocket(new InetSocketAddress(ip, 0)));
        s.setSoTimeout(1500);
        return s;
    }

    /** The next datagram, or null on timeout. */
    public static DatagramPacket receivePacket(DatagramSocket s) throws IOException {
        DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
        try {
            s.receive(p);
            return p;
        } catch (SocketTimeoutException e) {
            return null;
        }
    }

    /** The next datagram as UTF-8 text, or null on timeout. */
    public static String receive(DatagramSocket s) throws IOException {
        DatagramPacket p = receivePacket(s);
        return p == null ? null : new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
    }

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        try {
            for (AutoCloseable c : open) {
                c.close();
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) { // nothing tracked here throws anything else
            throw new IOException(e);
        } finally {
            open.clear();
        }
    }
}
