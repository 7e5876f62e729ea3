package dev.parley.turn.support;

import dev.parley.media.stun.ChannelData;
import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunIntegrity;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMessageType;
import dev.parley.media.stun.StunMessageWriter;
import dev.parley.media.stun.StunMethod;
import dev.parley.media.stun.StunParseException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * A small blocking TURN client for tests, built on the media-core codec (so it is independent of the server's
 * request handling). Works over UDP or TCP.
 */
public final class TestTurnClient implements AutoCloseable {
    public static final String REALM = "parley";
    private final DatagramSocket udp;
    private final Socket tcp;
    private final InetSocketAddress server;
    private String username;
    private String nonce;
    private byte[] key;

    private TestTurnClient(DatagramSocket udp, Socket tcp, InetSocketAddress server) {
        this.udp = udp;
        this.tcp = tcp;
        this.server = server;
    }

    public static TestTurnClient udp(InetSocketAddress server) throws IOException {
        DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        s.setSoTimeout(2000);
        return new TestTurnClient(s, null, server);
    }

    public static TestTurnClient tcp(InetSocketAddress server) throws IOException {
        Socket s = new Socket();
        s.connect(server, 2000);
        s.setSoTimeout(2000);
        s.setTcpNoDelay(true);
        return new TestTurnClient(null, s, server);
    }

    public InetSocketAddress localAddress() {
        return udp != null ? (InetSocketAddress) udp.getLocalSocketAddress() : (InetSocketAddress) tcp.getLocalSocketAddress();
    }

    public void credentials(String username, String password) {
        this.username = username;
        this.key = StunIntegrity.longTermKey(username, REALM, password);
    }

    public void nonce(String nonce) {
        this.nonce = nonce;
    }

    public String nonce() {
        return nonce;
    }

    public static byte[] txid() {
        byte[] t = new byte[12];
        ThreadLocalRandom.current().nextBytes(t);
        return t;
    }

    /** Builds a request; {@code body} adds attributes; signs with the current credentials/nonce if {@code auth}. */
    public byte[] request(int method, byte[] txid, boolean auth, Consumer<StunMessageWriter> body) {
        ByteBuf out = Unpooled.buffer();
        StunMessageWriter w = new StunMessageWriter().begin(out, StunMessageType.of(method, StunClass.REQUEST), txid);
        body.accept(w);
        if (auth) {
            w.string(StunAttribute.USERNAME, username).string(StunAttribute.REALM, REALM)
                    .string(StunAttribute.NONCE, nonce).messageIntegrity(key);
        }
        w.fingerprint();
        byte[] b = new byte[out.readableBytes()];
        out.readBytes(b);
        return b;
    }

    public void sendRaw(byte[] b) throws IOException {
        if (udp != null) {
            udp.send(new DatagramPacket(b, b.length, server));
        } else {
            OutputStream o = tcp.getOutputStream();
            o.write(b);
            int pad = (4 - (b.length & 3)) & 3;
            if (ChannelData.isValidChannel(((b[0] & 0xFF) << 8) | (b[1] & 0xFF)) && pad > 0) {
                o.write(new byte[pad]);
            }
            o.flush();
        }
    }

    /** Next packet/frame from the server, or null on timeout. */
    public byte[] receive(int timeoutMillis) throws IOException {
        try {
            if (udp != null) {
                udp.setSoTimeout(timeoutMillis);
                DatagramPacket p = new DatagramPacket(new byte[70000], 70000);
                udp.receive(p);
                return java.util.Arrays.copyOf(p.getData(), p.getLength());
            }
            tcp.setSoTimeout(timeoutMillis);
            DataInputStream in = new DataInputStream(tcp.getInputStream());
            byte[] head = new byte[4];
            in.readFully(head);
            int first = ((head[0] & 0xFF) << 8) | (head[1] & 0xFF);
            int len = ((head[2] & 0xFF) << 8) | (head[3] & 0xFF);
            boolean cd = ChannelData.isValidChannel(first);
            int rest = cd ? len + ((4 - (len & 3)) & 3) : 16 + len;
            byte[] body = new byte[rest];
            in.readFully(body);
            byte[] all = new byte[4 + (cd ? len : rest)];
            System.arraycopy(head, 0, all, 0, 4);
            System.arraycopy(body, 0, all, 4, all.length - 4);
            return all;
        } catch (SocketTimeoutException e) {
            return null;
        }
    }

    /** Sends and waits for the response with the same transaction id; null on timeout. */
    public StunMessage transact(byte[] request) throws IOException, StunParseException {
        sendRaw(request);
        long deadline = System.currentTimeMillis() + 2000;
        while (System.currentTimeMillis() < deadline) {
            byte[] r = receive(2000);
            if (r == null) {
                return null;
            }
            if (r.length >= 20 && (r[0] & 0xC0) == 0) {
                StunMessage m = StunMessage.parse(Unpooled.wrappedBuffer(r));
                if (java.util.Arrays.equals(m.transactionId(), java.util.Arrays.copyOfRange(request, 8, 20))) {
                    return m;
                }
            }
        }
        return null;
    }

    /** Only the first half of the dance: takes the nonce from a 401 without allocating. */
    public void challenge(String user, String password) throws IOException, StunParseException {
        credentials(user, password);
        StunMessage challenge = transact(request(StunMethod.ALLOCATE, txid(), false, w -> w.requestedTransport(17)));
        nonce = challenge.string(StunAttribute.NONCE);
    }

    /** The 401 dance: unauthenticated Allocate, take the nonce, authenticated Allocate. Returns the final response. */
    public StunMessage allocate(String user, String password, Consumer<StunMessageWriter> extra)
            throws IOException, StunParseException {
        credentials(user, password);
        StunMessage challenge = transact(request(StunMethod.ALLOCATE, txid(), false, w -> w.requestedTransport(17)));
        if (challenge == null || challenge.errorCode() != 401) {
            return challenge;
        }
        nonce = challenge.string(StunAttribute.NONCE);
        return transact(request(StunMethod.ALLOCATE, txid(), true, w -> {
            w.requestedTransport(17);
            extra.accept(w);
        }));
    }

    /** The 401 dance for an Allocate with REQUESTED-TRANSPORT {@code protocol} (6: an RFC 6062 TCP allocation). */
    public StunMessage allocateTransport(String user, String password, int protocol) throws IOException, StunParseException {
        credentials(user, password);
        StunMessage challenge = transact(request(StunMethod.ALLOCATE, txid(), false, w -> w.requestedTransport(protocol)));
        if (challenge == null || challenge.errorCode() != 401) {
            return challenge;
        }
        nonce = challenge.string(StunAttribute.NONCE);
        return transact(request(StunMethod.ALLOCATE, txid(), true, w -> w.requestedTransport(protocol)));
    }

    /**
     * Sends an authenticated request and, if the nonce was refused (401/438: nonces are bound to the client's address
     * and port, so a new connection needs its own), retries once with the nonce the error carried.
     */
    public StunMessage transactWithNonce(int method, Consumer<StunMessageWriter> body) throws IOException, StunParseException {
        StunMessage r = transact(request(method, txid(), nonce != null, body));
        if (r != null && (r.errorCode() == 401 || r.errorCode() == 438) && r.string(StunAttribute.NONCE) != null) {
            nonce = r.string(StunAttribute.NONCE);
            r = transact(request(method, txid(), true, body));
        }
        return r;
    }

    /** The TCP socket (raw bytes after a successful RFC 6062 ConnectionBind). */
    public Socket socket() {
        return tcp;
    }

    public StunMessage allocate(String user, String password) throws IOException, StunParseException {
        return allocate(user, password, w -> { });
    }

    public StunMessage createPermission(InetAddress peer) throws IOException, StunParseException {
        return transact(request(StunMethod.CREATE_PERMISSION, txid(), true,
                w -> w.address(StunAttribute.XOR_PEER_ADDRESS, peer.getAddress(), 0, true)));
    }

    public StunMessage createPermission(byte[] rawPeer) throws IOException, StunParseException {
        return transact(request(StunMethod.CREATE_PERMISSION, txid(), true,
                w -> w.address(StunAttribute.XOR_PEER_ADDRESS, rawPeer, 0, true)));
    }

    public StunMessage channelBind(int channel, byte[] rawPeer, int port) throws IOException, StunParseException {
        return transact(request(StunMethod.CHANNEL_BIND, txid(), true,
                w -> w.channelNumber(channel).address(StunAttribute.XOR_PEER_ADDRESS, rawPeer, port, true)));
    }

    public StunMessage refresh(long lifetime) throws IOException, StunParseException {
        return transact(request(StunMethod.REFRESH, txid(), true, w -> w.uint32(StunAttribute.LIFETIME, lifetime)));
    }

    public void sendIndication(byte[] rawPeer, int port, byte[] data) throws IOException {
        sendIndication(rawPeer, port, data, false);
    }

    /** A Send indication, with DONT-FRAGMENT if {@code dontFragment}. */
    public void sendIndication(byte[] rawPeer, int port, byte[] data, boolean dontFragment) throws IOException {
        ByteBuf out = Unpooled.buffer();
        StunMessageWriter w = new StunMessageWriter().begin(out, StunMessageType.of(StunMethod.SEND, StunClass.INDICATION), txid())
                .address(StunAttribute.XOR_PEER_ADDRESS, rawPeer, port, true)
                .attribute(StunAttribute.DATA, data);
        if (dontFragment) {
            w.flag(StunAttribute.DONT_FRAGMENT);
        }
        byte[] b = new byte[out.readableBytes()];
        out.readBytes(b);
        sendRaw(b);
    }

    public void sendChannelData(int channel, byte[] data) throws IOException {
        byte[] b = new byte[4 + data.length];
        b[0] = (byte) (channel >>> 8);
        b[1] = (byte) channel;
        b[2] = (byte) (data.length >>> 8);
        b[3] = (byte) data.length;
        System.arraycopy(data, 0, b, 4, data.length);
        sendRaw(b);
    }

    @Override
    public void close() throws IOException {
        if (udp != null) {
            udp.close();
        }
        if (tcp != null) {
            tcp.close();
        }
    }
}
