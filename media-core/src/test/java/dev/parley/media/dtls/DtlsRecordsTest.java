package dev.parley.media.dtls;

import dev.parley.media.srtp.SrtpProfile;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** RFC 6347 §4.1.2.7: what the record check lets through to the handshake and what it discards. */
class DtlsRecordsTest {
    private static final java.util.concurrent.Executor POOL = r -> Thread.ofPlatform().daemon().start(r);

    /** One DTLS record: content type, version, epoch, sequence number 0..., body. */
    static byte[] record(int type, int version, int epoch, long seq, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(13 + body.length);
        b.put((byte) type).putShort((short) version).putShort((short) epoch);
        b.putShort((short) (seq >>> 32)).putInt((int) seq);
        b.putShort((short) body.length).put(body);
        return b.array();
    }

    /** One handshake fragment: type, message length, message_seq, fragment offset, fragment bytes. */
    static byte[] fragment(int msgType, int length, int messageSeq, int offset, byte[] frag) {
        ByteBuffer b = ByteBuffer.allocate(12 + frag.length);
        b.put((byte) msgType).put((byte) (length >>> 16)).putShort((short) length).putShort((short) messageSeq);
        b.put((byte) (offset >>> 16)).putShort((short) offset);
        b.put((byte) (frag.length >>> 16)).putShort((short) frag.length).put(frag);
        return b.array();
    }

    static byte[] hex(String s) { return HexFormat.of().parseHex(s.replace(" ", "")); }

    private static int check(byte[] d) { return DtlsRecords.count(d, 0, d.length); }

    @Test
    void framingJunkIsRejected() {
        java.util.Random r = new java.util.Random(7);
        byte[] junk = new byte[23];
        r.nextBytes(junk);
        junk[0] = 0x16; junk[1] = (byte) 0xFE; junk[2] = (byte) 0xFD;
        junk[11] = 0x10; // length 0x10xx: longer than the datagram
        assertThat(check(junk)).as("16 fe fd + random").isNegative();
        byte[] noise = new byte[60];
        r.nextBytes(noise);
        noise[0] = 42;
        assertThat(check(noise)).as("random, first byte 42").isNegative();
        assertThat(check(hex("16fefd 0000 000000000000 0064 0102030405"))).as("truncated").isNegative();
        assertThat(check(hex("16fefd 0000 000000000000 0002 0102 030405060708090a0b0c0d0e0f"))).as("length too short").isNegative();
        assertThat(check(hex("16fefd 0000 0000000000"))).as("header cut").isNegative();
        assertThat(check(new byte[0])).as("empty").isNegative();
    }

    @Test
    void wellFramedButInvalidRecordsAreRejected() {
        byte[] hello = fragment(1, 4, 0, 0, new byte[]{(byte) 0xFE, (byte) 0xFD, 0, 0});
        assertThat(check(record(22, 0xFEFD, 0, 0, hello))).as("control: a plausible ClientHello fragment").isEqualTo(1);
        assertThat(check(record(24, 0xFEFD, 0, 0, new byte[]{1, 0, 0}))).as("heartbeat: not negotiated").isNegative();
        assertThat(check(record(25, 0xFEFD, 1, 0, new byte[32]))).as("tls12_cid: not negotiated").isNegative();
        assertThat(check(record(22, 0xFE00, 0, 0, hello))).as("version fe00").isNegative();
        assertThat(check(record(22, 0x0303, 0, 0, hello))).as("TLS version").isNegative();
        assertThat(check(record(22, 0xFEFD, 0, 0, new byte[0]))).as("empty handshake record").isNegative();
        assertThat(check(record(22, 0xFEFD, 0, 0, new byte[]{1, 2, 3}))).as("handshake header cut").isNegative();
        assertThat(check(record(22, 0xFEFD, 0, 0, fragment(0x63, 4, 0, 0, new byte[4])))).as("unknown message type").isNegative();
        assertThat(check(record(22, 0xFEFD, 0, 0, fragment(1, 2, 0, 0, new byte[4])))).as("fragment past message").isNegative();
        assertThat(check(record(22, 0xFEFD, 0, 0, fragment(1, 1 << 20, 0, 0, new byte[4])))).as("message of 1 MiB").isNegative();
        byte[] cut = fragment(1, 8, 0, 0, new byte[8]);
        assertThat(check(record(22, 0xFEFD, 0, 0, java.util.Arrays.copyOf(cut, cut.length - 3)))).as("fragment cut").isNegative();
        byte[] trailing = java.util.Arrays.copyOf(hello, hello.length + 5);
        assertThat(check(record(22, 0xFEFD, 0, 0, trailing))).as("bytes after the last fragment").isNegative();
        assertThat(check(record(21, 0xFEFD, 0, 0, new byte[]{2, 40, 0}))).as("alert of 3 bytes").isNegative();
        assertThat(check(record(21, 0xFEFD, 0, 0, new byte[]{9, 40}))).as("alert level 9").isNegative();
        assertThat(check(record(20, 0xFEFD, 0, 0, new byte[]{2}))).as("change_cipher_spec 2").isNegative();
        assertThat(check(record(23, 0xFEFD, 0, 0, new byte[20]))).as("application data in epoch 0").isNegative();
        assertThat(check(record(23, 0xFEFD, 1, 0, new byte[5]))).as("ciphertext shorter than any AEAD tag").isNegative();
        assertThat(check(record(23, 0xFEFD, 2, 0, new byte[40]))).as("epoch 2: never used here").isNegative();
        byte[] good = record(22, 0xFEFD, 0, 0, hello), bad = record(22, 0xFEFD, 0, 1, fragment(0x63, 4, 0, 0, new byte[4]));
        byte[] both = ByteBuffer.allocate(good.length + bad.length).put(good).put(bad).array();
        assertThat(check(both)).as("one bad record spoils the datagram").isNegative();
    }

    @Test
    void everyDatagramOfARealHandshakePasses() throws Exception {
        Queue<byte[]> seen = new ConcurrentLinkedQueue<>();
        AtomicReference<QueueDatagramTransport> s = new AtomicReference<>(), c = new AtomicReference<>();
        QueueDatagramTransport st = new QueueDatagramTransport((b, o, l) -> { seen.add(java.util.Arrays.copyOfRange(b, o, o + l)); c.get().offer(b, o, l); });
        QueueDatagramTransport ct = new QueueDatagramTransport((b, o, l) -> { seen.add(java.util.Arrays.copyOfRange(b, o, o + l)); s.get().offer(b, o, l); });
        s.set(st);
        c.set(ct);
        DtlsCertificate sc = DtlsCertificate.generate(), cc = DtlsCertificate.generate();
        DtlsEndpoint server = new DtlsEndpoint(true, sc, cc.fingerprint(), List.of(SrtpProfile.AEAD_AES_128_GCM), st);
        DtlsEndpoint client = new DtlsEndpoint(false, cc, sc.fingerprint(), List.of(SrtpProfile.AEAD_AES_128_GCM), ct);
        CompletableFuture<DtlsSrtpKeys> srv = CompletableFuture.supplyAsync(() -> {
            try { return server.handshake(); } catch (java.io.IOException e) { throw new java.io.UncheckedIOException(e); }
        }, POOL);
        client.handshake();
        srv.get(20, TimeUnit.SECONDS);
        client.close(); // close_notify: an epoch-1 alert
        server.close();
        assertThat(seen).hasSizeGreaterThan(4);
        for (byte[] d : seen) assertThat(check(d)).as(HexFormat.of().formatHex(d, 0, Math.min(d.length, 40))).isPositive();
    }
}
